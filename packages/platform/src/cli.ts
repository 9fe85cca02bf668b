import { Command } from 'commander';
import { checkEnvironment } from './check.ts';
import { baseConfigSpec, describeConfig } from './config.ts';
import { runCli } from './main.ts';

const program = new Command('platform')
  .description('Shared platform tools: check the environment the services will start in')
  .addHelpText(
    'after',
    `\nShared environment variables:\n${describeConfig(baseConfigSpec({ prefix: '<SERVICE>_', defaultPort: 0 }))}`,
  );

program
  .command('check')
  .description('validate configuration and reach the configured database and Redis (exit 1 on failure)')
  .action(async () => {
    const report = await checkEnvironment();
    for (const line of report.lines) process.stdout.write(`${line}\n`);
  });

await runCli(program);
