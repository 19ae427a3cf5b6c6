import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@toolsys/source', 'module', 'node', 'import', 'default'] },
  ssr: { resolve: { conditions: ['@toolsys/source', 'module', 'node', 'import', 'default'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
