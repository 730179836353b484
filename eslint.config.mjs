// @ts-check
/**
 * Lint rules. Formatting is Prettier's job (.prettierrc.json); eslint-config-prettier turns off the rules it owns.
 *
 * The layers of src/, bottom to top (docs/architecture.md, "Layers"). A folder imports only the layers
 * below it, never one beside or above it; packages from node_modules are open to every layer.
 *
 *   layer          may import (besides its own folder)
 *   schemas        nothing: the facts every layer may read (roles, statuses, bounds, field names)
 *   errors         schemas
 *   config         schemas, errors                                  (lib and config sit side by side:
 *   lib            schemas, errors                                   settings reach lib as arguments)
 *   models         schemas, errors, config, lib
 *   services       schemas, errors, config, lib, models
 *   validators     ... services
 *   openapi        ... services, validators
 *   middlewares    ... services, validators, openapi
 *   controllers    schemas, errors, config, lib, services           (never models, validators, openapi, middlewares)
 *   routes         all of the above
 *   app.ts         all of the above
 *   server.ts, reconcile.ts, cli/, dev/   the entry points: every layer; no layer imports them
 *
 * src/types/ holds global declarations (the type of res.locals), which are never imported.
 * Besides the layers, no two files may import each other, directly or round a loop, even for a type only:
 * `npm run lint:cycles` (dpdm; ESLint's import-x/no-cycle skips type-only imports, which is how the one loop
 * of routes/v1 was made), run by `npm run lint`.
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The entry points: only they start things, so no layer imports them. */
const ENTRY_POINTS = ['app', 'server', 'reconcile', 'cli', 'dev'];

/** Each layer folder of src/ and the layers it may import (the table above). */
const BELOW_MODELS = ['schemas', 'errors', 'config', 'lib'];
const LAYERS = {
  schemas: [],
  errors: ['schemas'],
  config: ['schemas', 'errors'],
  lib: ['schemas', 'errors'],
  models: BELOW_MODELS,
  services: [...BELOW_MODELS, 'models'],
  validators: [...BELOW_MODELS, 'models', 'services'],
  openapi: [...BELOW_MODELS, 'models', 'services', 'validators'],
  middlewares: [...BELOW_MODELS, 'models', 'services', 'validators', 'openapi'],
  controllers: [...BELOW_MODELS, 'services'],
  routes: [...BELOW_MODELS, 'models', 'services', 'validators', 'openapi', 'middlewares', 'controllers'],
};

/** "a, b and c" */
const list = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/**
 * `no-restricted-imports` for one layer: every other layer folder and entry point of src/ that its table row
 * does not name is refused, with a message that says what is allowed. Only relative imports are matched
 * (so a package such as 'dotenv/config' is never taken for the config layer).
 */
const layer = (folder, allowed) => {
  const forbidden = [...Object.keys(LAYERS), ...ENTRY_POINTS].filter(
    (name) => name !== folder && !allowed.includes(name),
  );
  const may = allowed.length > 0 ? `only ${list(allowed)} (and packages)` : 'only other schemas and packages';
  return {
    files: [`src/${folder}/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\.?/(?:.*/)?(?:${forbidden.join('|')})(?:/|$)`,
              message: `src/${folder}/ may import ${may}: the layer order is at the top of eslint.config.mjs.`,
            },
          ],
        },
      ],
    },
  };
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'artifacts/',
      '.cache/',
      '.data/',
      'uploads/',
      'tools/mongo-standin/target/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
  {
    // The example SPA runs in the browser; the browser checks pass functions to page.evaluate, which run there too.
    files: ['examples/spa/**/*.js', 'tools/*/check.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  { files: ['examples/spa/app.js'], languageOptions: { sourceType: 'module' } },
  { files: ['tests/**', 'tools/**', 'bench/**', 'examples/**', 'clients/**'], rules: { 'no-console': 'off' } },
  ...Object.entries(LAYERS).map(([folder, allowed]) => layer(folder, allowed)),
  {
    files: ['src/app.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\.\\.?/(?:.*/)?(?:server|reconcile|cli|dev)(?:/|$)`,
              message: 'src/app.ts may import every layer, never an entry point (server.ts, reconcile.ts, cli/, dev/).',
            },
          ],
        },
      ],
    },
  },
  {
    // docs/architecture.md: configuration is read once, by src/config, and handed to whoever needs it.
    files: ['src/**'],
    ignores: ['src/config/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only src/config reads the environment: take the setting from Config.',
        },
      ],
    },
  },
  prettier,
);
