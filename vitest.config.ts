import { defineConfig } from 'vitest/config';

// Every package under packages/ is a Vitest project: the output names the package of each test.
export default defineConfig({
  test: {
    projects: ['packages/*'],
  },
});
