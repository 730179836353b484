/**
 * Installed for every test file (jest.config.js setupFilesAfterEnv): a test whose responses broke
 * the OpenAPI contract fails, naming each mismatch (see tests/helpers/contract.ts).
 */
import { takeContractMismatches } from './contract';

function failOnMismatches(when: string): void {
  const found = takeContractMismatches();
  if (found.length > 0) {
    throw new Error(`Responses ${when} do not match the OpenAPI document:\n  - ${found.join('\n  - ')}`);
  }
}

afterEach(() => failOnMismatches('received by this test (or by the beforeAll hooks before it)'));
afterAll(() => failOnMismatches('received in beforeAll/afterAll hooks'));
