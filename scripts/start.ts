// `npm start`: runs every service of the monorepo (each package with a `src/server.ts`) as its own
// process, so one failing service cannot take the other's memory or event loop with it. Signals are
// forwarded once; if a service fails to start, the others are stopped and the exit status is non-zero.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.join(root, 'packages');
const services = readdirSync(packagesDir)
  .map((name) => ({ name, entry: path.join(packagesDir, name, 'src', 'server.ts') }))
  .filter((s) => existsSync(s.entry));

function run(args: string[]): ChildProcess {
  // detached: each child gets its own process group, so a terminal's Ctrl-C reaches only this
  // supervisor, which forwards it exactly once (a second signal would force-kill a service).
  return spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, stdio: 'inherit', detached: true });
}

if (services.length === 0) {
  // No service package exists yet: verify the environment the services will need, then stop.
  const check = run([path.join(packagesDir, 'platform', 'src', 'cli.ts'), 'check']);
  check.on('exit', (code) => {
    if (code === 0) process.stdout.write('No service package is present yet; nothing to start.\n');
    process.exit(code ?? 1);
  });
} else {
  const children = new Map<string, ChildProcess>();
  let exitCode = 0;
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
  };
  for (const service of services) {
    const child = run([service.entry]);
    children.set(service.name, child);
    child.on('exit', (code, signal) => {
      children.delete(service.name);
      const failed = code !== 0 && !(stopping && signal !== null);
      if (failed) {
        exitCode = code ?? 1;
        if (!stopping)
          process.stderr.write(`start: ${service.name} stopped (exit ${code ?? signal}); stopping the others\n`);
        stopAll('SIGTERM');
      }
      if (children.size === 0) process.exit(exitCode);
    });
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopAll(signal));
}
