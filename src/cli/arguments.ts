/**
 * The commands that take no arguments (`npm run reconcile`, `npm run banners:backfill`) refuse any: each
 * runs for real, so `-- --dry-run` or `-- --help`, ignored, would delete files and records unasked.
 */
export function refusedArguments(command: string, argv: readonly string[]): string | undefined {
  if (argv.length === 0) return undefined;
  return `${command}: takes no arguments, and runs for real each time (docs/failure-behaviour.md)`;
}
