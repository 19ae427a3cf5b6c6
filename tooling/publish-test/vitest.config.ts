import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

/** The shared configuration, plus one build of the public packages before any test file runs. */
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      globalSetup: ['./test/global-setup.ts'],
      // The registry test compiles better-sqlite3 from source; files run one at a time.
      fileParallelism: false,
      hookTimeout: 600_000,
    },
  }),
);
