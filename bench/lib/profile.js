// @ts-check
/**
 * Reads a V8 CPU profile (node --cpu-prof) and tells where the time went: self time per function and
 * per package (node_modules/<name>, node: internals, our dist/ code), as shares of all samples.
 */
'use strict';

/** Which package a script belongs to, for the per-package view. */
function packageOf(url) {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return 'node internals';
  // the innermost package: mongoose's own copy of the driver counts as mongodb, not as mongoose
  const modules = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].pop();
  if (modules) return modules[1];
  const ours = /\/(dist|src|bench)\/(.*)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

/**
 * Top places by self time: { functions: [{where, percent}], packages: [{where, percent}] }.
 * `skipFirstMs` leaves out the start-up (module loading, connecting), which is no request's cost.
 */
function summarizeProfile(profile, { top = 15, skipFirstMs = 0 } = {}) {
  const selfTime = new Map();
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  let elapsedUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsedUs += delta;
    if (elapsedUs >= skipFirstMs * 1000) selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
  });
  let total = 0;
  const functions = new Map();
  const packages = new Map();
  for (const [id, time] of selfTime) {
    const { callFrame } = byNode.get(id);
    if (callFrame.functionName === '(idle)') continue;
    total += time;
    const url = callFrame.url.replace(/^file:\/\//, '');
    const file = packageOf(url);
    const where = `${callFrame.functionName || '(anonymous)'}  ${file}${url && !file.includes('/') ? `/${url.split('/').pop()}` : ''}:${callFrame.lineNumber + 1}`;
    functions.set(where, (functions.get(where) ?? 0) + time);
    packages.set(file, (packages.get(file) ?? 0) + time);
  }
  const ranked = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, time]) => ({ where, percent: (100 * time) / total }));
  return { functions: ranked(functions), packages: ranked(packages) };
}

module.exports = { summarizeProfile };
