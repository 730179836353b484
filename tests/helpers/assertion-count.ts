/**
 * Counts the assertions each test makes, when ASSERTION_COUNT_FILE names a file: one JSON line per test
 * ({ file, test, assertions }) is appended to it. Off otherwise. Used to show that a refactoring of the
 * tests kept every assertion: `ASSERTION_COUNT_FILE=/tmp/a.jsonl npx jest`, then
 * `jq -s 'map(.assertions) | add' /tmp/a.jsonl`. Jest runs no afterEach for it.concurrent tests, so those
 * (graceful-shutdown, one of scale-out) are not counted.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';

const target = process.env.ASSERTION_COUNT_FILE;
if (target) {
  afterEach(() => {
    const { assertionCalls, currentTestName, testPath } = expect.getState();
    const file = path.relative(process.cwd(), testPath ?? '');
    appendFileSync(target, `${JSON.stringify({ file, test: currentTestName, assertions: assertionCalls })}\n`);
  });
}
