import { type Command, CommanderError } from 'commander';
import { reportUnknownOptionsFirst } from './cli-required-options.ts';
import { DomainError } from './errors.ts';

/**
 * Runs a program's entry point. Expected failures (bad configuration, unreachable database, a domain
 * error) end the process with one line on stderr and exit status 1; an unexpected error prints its
 * stack only when `DEBUG` is set.
 */
export async function runMain(name: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    process.stderr.write(`${name}: ${describeFailure(err)}\n`);
    if (process.env.DEBUG && err instanceof Error && !(err instanceof DomainError)) {
      process.stderr.write(`${err.stack}\n`);
    }
    process.exit(1);
  }
}

/** A one-line description of a failure, for users rather than developers. */
export function describeFailure(err: unknown): string {
  return printable(describe(err));
}

/**
 * Bytes of a binary file quoted by a parser's message (JSON.parse quotes what it read) would reach the terminal
 * as control characters and replacement marks: each is shown as `?`.
 */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
}

function describe(err: unknown): string {
  if (err instanceof DomainError) return err.message;
  const fs = err as NodeJS.ErrnoException | null;
  // A file system call's own message ("ENOENT: no such file or directory, open 'x'") is for developers.
  if (err instanceof Error && typeof fs?.code === 'string' && typeof fs.path === 'string' && FILE_PROBLEMS[fs.code]) {
    return `${fs.path}: ${FILE_PROBLEMS[fs.code]} (${fs.code})`;
  }
  if (err instanceof Error) return `${err.message.split('\n')[0]}`;
  return String(err);
}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EEXIST: 'already exists',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/**
 * Parses argv with a commander program and runs the chosen action: `--help` exits 0, a usage error or a
 * failing action exits non-zero with a single line on stderr.
 */
export async function runCli(program: Command, argv: string[] = process.argv): Promise<void> {
  // `cli list | head -1`: once the reader is gone, the rest of the output is dropped quietly instead of dying on
  // an unhandled EPIPE with a stack trace. The command itself runs to its end and exits with its own status: an
  // import piped into `head -1` that stopped at its first line would leave the files after it unread, and what
  // it stored unscored, and still say 0. Any other failure to write the output is one line on stderr.
  let readerGone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // Writes made before the first error was reported fail too (the stream is destroyed by then).
    if (readerGone || err.code === 'EPIPE') {
      readerGone = true;
      discardStdout();
      return;
    }
    process.stderr.write(`${program.name()}: cannot write the output: ${err.code ?? err.message}\n`);
    process.exit(1);
  });
  program.exitOverride();
  program.configureOutput({
    writeErr: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    outputError: (text, write) => write(text.replace(/^error: /, `${program.name()}: `)),
  });
  for (const sub of program.commands) applyOverrides(sub as Command, program);
  reportUnknownOptionsFirst(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed the usage error or the help text
      process.exit(err.exitCode);
    }
    process.stderr.write(`${program.name()}: ${describeFailure(err)}\n`);
    if (process.env.DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
}

/** Turns later writes to stdout into no-ops that succeed: no one reads them any more. */
function discardStdout(): void {
  process.stdout.write = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof process.stdout.write;
}

function applyOverrides(cmd: Command, root: Command) {
  cmd.exitOverride();
  cmd.configureOutput({
    writeErr: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    outputError: (text, write) => write(text.replace(/^error: /, `${root.name()}: `)),
  });
  for (const sub of cmd.commands) applyOverrides(sub as Command, root);
}
