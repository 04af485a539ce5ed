// The suites by concern, a jest project each, so that `npx jest --selectProjects gpu` (or api, runtime, packaging,
// structure) runs one concern and every result is labelled with its own. Within a concern, jest's workers run the
// files side by side: the GPU kernels' suites are a file per kernel for that reason (docs/development.md, "The tests,
// by concern").
const CONCERNS = ['api', 'gpu', 'runtime', 'packaging', 'structure'];

/** @type {import('jest').Config} */
module.exports = {
  verbose: true,
  testTimeout: 300_000,
  projects: CONCERNS.map((concern) => ({
    displayName: concern,
    testEnvironment: 'node',
    roots: [`<rootDir>/test/${concern}`],
    testRegex: '\\.test\\.ts$',
    transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }] },
  })),
};
