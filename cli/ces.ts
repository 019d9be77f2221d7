// The `ces` command line (DESIGN.md "CLI", contract): exit 0 all MUST checks pass, 1 a MUST check failed, 2 usage or setup error.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { CommandModule } from 'yargs';
import { UsageError } from './usage.js';

/**
 * The commands in the order `--help` lists them, each loaded on demand: a run of one command loads only its own modules (the
 * whole set costs about a second of start-up, paid by every `ces` process the tests and selftest spawn). `--help`, a missing or
 * an unknown command load them all, so the list and the suggestions stay complete.
 */
const COMMANDS: Record<string, () => Promise<CommandModule<any, any>>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  test: async () => (await import('./commands/test.js')).testCommand,
  target: async () => (await import('./commands/target.js')).targetCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  selftest: async () => (await import('./commands/selftest.js')).selftestCommand,
  load: async () => (await import('./commands/load.js')).loadCommand,
  bench: async () => (await import('./commands/bench.js')).benchCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  sink: async () => (await import('./commands/sink.js')).sinkCommand,
  wire: async () => (await import('./commands/wire.js')).wireCommand,
  fuzz: async () => (await import('./commands/fuzz.js')).fuzzCommand,
  record: async () => (await import('./commands/record.js')).recordCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
};
const named = hideBin(process.argv)[0];
const loaded = await Promise.all((named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS)).map((load) => load()));

const cli = yargs(hideBin(process.argv))
  .scriptName('ces')
  .usage('$0 <command> [options]\n\nConformance and load-testing harness for the Conversational Engagement Service.')
  .command(loaded)
  .demandCommand(1, 'Name a command; `ces --help` lists them.')
  .strict()
  .recommendCommands()
  .epilogue('Exit codes: 0 every MUST check passed; 1 a MUST check failed; 2 usage or setup error.')
  .fail((msg, err, y) => {
    if (err && !(err instanceof UsageError)) throw err;
    // A set-up error of a command (bad target, refused key) is one message; only a misuse of the options shows the usage.
    if (err) { console.error(`ces: ${err.message}`); process.exit(2); }
    console.error(`ces: ${msg}\n`);
    console.error(y.help().toString().split('\n').slice(0, 3).join('\n'));
    console.error('\nRun with --help for every option.');
    process.exit(2);
  })
  .help()
  .version();

try {
  await cli.parseAsync();
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`ces: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(2);
}
