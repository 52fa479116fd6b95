import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * A bench script's command line, read by node's parseArgs: `--help` (`-h`) prints `usage` and
 * exits 0, and a flag the script does not take prints the error and `usage` and exits 2, instead
 * of a stack trace. Call it before the script starts any work.
 */
export function commandLine<T extends ParseArgsConfig>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const text = `${usage.trim()}\n`;
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(text);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${text}`);
    process.exit(2);
  }
}
