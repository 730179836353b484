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
 * Self time (µs) per function and per package over the samples taken between `fromUs` and `toUs`, on the
 * profile's clock (the process's monotonic clock, as `process.hrtime` reads it), idle left out.
 */
function selfTimes(profile, { fromUs = -Infinity, toUs = Infinity } = {}) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map();
  const packages = new Map();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < fromUs || at > toUs) return;
    const { callFrame } = byNode.get(id);
    if (callFrame.functionName === '(idle)') return;
    total += delta;
    const url = callFrame.url.replace(/^file:\/\//, '');
    const file = packageOf(url);
    const where = `${callFrame.functionName || '(anonymous)'}  ${file}${url && !file.includes('/') ? `/${url.split('/').pop()}` : ''}:${callFrame.lineNumber + 1}`;
    functions.set(where, (functions.get(where) ?? 0) + delta);
    packages.set(file, (packages.get(file) ?? 0) + delta);
  });
  return { total, functions, packages };
}

/**
 * Top places by self time: { functions: [{where, percent}], packages: [{where, percent}] }.
 * `skipFirstMs` leaves out the start-up (module loading, connecting), which is no request's cost.
 */
function summarizeProfile(profile, { top = 15, skipFirstMs = 0 } = {}) {
  const { total, functions, packages } = selfTimes(profile, { fromUs: profile.startTime + skipFirstMs * 1000 });
  const ranked = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, time]) => ({ where, percent: (100 * time) / total }));
  return { functions: ranked(functions), packages: ranked(packages) };
}

/**
 * The API's profile beside the floor's, over the same stretch of time (the read scenarios), as self time
 * in ms per request answered: { total: {ours, floor}, packages, functions }, each list [{where, ours,
 * floor}] with the places where the API spends most beyond the floor first.
 */
function compareProfiles(ours, floor, { fromUs, toUs, oursRequests, floorRequests, top = 15 }) {
  const a = selfTimes(ours, { fromUs, toUs });
  const b = selfTimes(floor, { fromUs, toUs });
  const perRequest = (us, requests) => us / 1000 / requests;
  const ranked = (mine, theirs) =>
    [...new Set([...mine.keys(), ...theirs.keys()])]
      .map((where) => ({
        where,
        ours: perRequest(mine.get(where) ?? 0, oursRequests),
        floor: perRequest(theirs.get(where) ?? 0, floorRequests),
      }))
      .sort((x, y) => y.ours - y.floor - (x.ours - x.floor))
      .slice(0, top);
  return {
    total: { ours: perRequest(a.total, oursRequests), floor: perRequest(b.total, floorRequests) },
    packages: ranked(a.packages, b.packages),
    functions: ranked(a.functions, b.functions),
  };
}

module.exports = { summarizeProfile, compareProfiles };
