import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// One Vitest project per workspace package, named after the package (`--project @svc/roads`), so the
// output says which package each test belongs to. A package may add its own vitest.config.ts.
const packagesDir = path.resolve(import.meta.dirname, 'packages');
const projects = readdirSync(packagesDir)
  .map((dir) => path.join(packagesDir, dir))
  .filter((dir) => existsSync(path.join(dir, 'package.json')))
  .map((dir) => {
    if (existsSync(path.join(dir, 'vitest.config.ts'))) return dir;
    const { name } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string };
    return {
      test: {
        name,
        root: dir,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
        testTimeout: 30_000,
        hookTimeout: 60_000,
      },
    };
  });

export default defineConfig({
  test: {
    projects,
    passWithNoTests: true,
  },
});
