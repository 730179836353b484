/**
 * The entry points that the process tests run (tests/helpers/server-process.ts, the typed-client
 * generator), bundled once per Jest run by tests/global-setup.ts: a bundle starts in less CPU than tsx
 * compiling module by module, and a test run starts some twenty of them. Dependencies stay external
 * (node_modules, as `npm start` loads them), so the bundles live inside the project, where node_modules resolves:
 * in .cache/, not node_modules/.cache/, so that checkouts sharing one node_modules (git worktrees) each run their own.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build, stop, type Plugin } from 'esbuild';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const BUILD_DIR = path.join(PROJECT_ROOT, '.cache', 'test-build');

/** The entry points the process tests run, relative to the project. */
const ENTRY_POINTS = [
  path.join('src', 'server.ts'),
  path.join('src', 'cli', 'make-admin.ts'),
  path.join('src', 'cli', 'backfill-banners.ts'),
  path.join('tools', 'typed-client', 'generate.ts'),
];

/**
 * The arguments of node that run the bundle of an entry point, e.g. 'src/server.ts' (one of ENTRY_POINTS),
 * with source maps, so that stack traces name the .ts files.
 */
export const bundleArguments = (entry: string): string[] => ['--enable-source-maps', bundleOf(entry)];

function bundleOf(entry: string): string {
  if (!ENTRY_POINTS.includes(entry))
    throw new Error(`${entry} is not bundled for the tests: add it to ENTRY_POINTS in tests/helpers/test-build.ts`);
  const bundle = path.join(BUILD_DIR, entry.replace(/\.ts$/, '.js'));
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run the tests through jest (tests/global-setup.ts)`);
  return bundle;
}

/**
 * A bundle has one __dirname, its own folder, where each module had its own; src/ finds the project's
 * folders from it (.data/, tools/mongo-standin/). Each module that reads __dirname gets its source
 * folder back as a constant, on its first line, so that source-map line numbers stay right.
 */
const sourceDirname: Plugin = {
  name: 'source-dirname',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('__dirname')) return undefined;
      return { contents: `const __dirname = ${JSON.stringify(path.dirname(args.path))};${source}`, loader: 'ts' };
    });
  },
};

export async function buildEntryPoints(): Promise<void> {
  try {
    await build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: ENTRY_POINTS,
      outbase: '.',
      outdir: BUILD_DIR,
      bundle: true,
      platform: 'node',
      target: 'node20',
      packages: 'external',
      sourcemap: true,
      plugins: [sourceDirname],
      logLevel: 'silent',
    });
  } catch (error) {
    throw new Error(
      `could not bundle ${ENTRY_POINTS.join(', ')} for the process tests (tests/helpers/test-build.ts): ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  } finally {
    // esbuild keeps its service process for later builds, and none follow in this Jest process.
    await stop();
  }
}
