// @ts-check
/**
 * Jest's TypeScript transform: esbuild strips the types of one file at a time (tsconfig.json has
 * isolatedModules, and `npm run typecheck` checks the types, tests and all). Neither Jest nor its workers
 * load the TypeScript compiler, which cost each of them over a second of CPU. esbuild is the project's
 * bundler already; SWC's Jest transform would do the same, but its platform packages are not all served
 * by this workplace's registry, so its lock file cannot be complete.
 */
const { createHash } = require('node:crypto');
const { transformSync, version } = require('esbuild');

/** @type {import('esbuild').TransformOptions} */
const OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  target: 'node20',
  // import() becomes require() in a promise, as tsc compiles it: Jest runs CommonJS without vm modules
  supported: { 'dynamic-import': false },
  sourcemap: true,
};
const OPTIONS_KEY = `${version}\0${JSON.stringify(OPTIONS)}`;

/** @type {import('@jest/transform').SyncTransformer} */
module.exports = {
  canInstrument: false,
  getCacheKey: (source, filename) => createHash('sha1').update(`${OPTIONS_KEY}\0${filename}\0${source}`).digest('hex'),
  process(source, filename) {
    const { code, map } = transformSync(source, { ...OPTIONS, sourcefile: filename });
    return { code, map };
  },
};
