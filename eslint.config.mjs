// @ts-check
/**
 * Lint rules, including the layer rules of docs/architecture.md as import restrictions:
 * controllers talk to services (and errors), never to models, validators or middlewares;
 * services and models never reach up into HTTP; the OpenAPI document never imports controllers.
 * Formatting is Prettier's job (.prettierrc.json); eslint-config-prettier turns off the rules it owns.
 */
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** `no-restricted-imports` for one layer: each entry is a folder of src/ it must not import. */
const layer = (files, forbidden, why) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((folder) => ({ group: [`**/${folder}/**`, `**/${folder}`], message: why })) },
    ],
  },
});

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
  layer(
    ['src/controllers/**'],
    ['models', 'validators', 'middlewares', 'routes'],
    'Controllers talk to services and errors only (docs/architecture.md).',
  ),
  layer(
    ['src/services/**', 'src/models/**'],
    ['controllers', 'routes', 'middlewares', 'validators', 'openapi'],
    'Services and models never reach up into the HTTP layers (docs/architecture.md).',
  ),
  layer(
    ['src/openapi/**'],
    ['controllers', 'routes'],
    'The OpenAPI document reads configuration and models, never controllers or routes.',
  ),
  layer(
    ['src/lib/**', 'src/config/**', 'src/errors/**'],
    ['controllers', 'routes', 'services', 'middlewares', 'validators'],
    'lib, config and errors are the bottom layer.',
  ),
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
