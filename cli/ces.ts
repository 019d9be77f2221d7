// The `ces` command line (DESIGN.md "CLI", contract): exit 0 all MUST checks pass, 1 a MUST check failed, 2 usage or setup error.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { serveCommand } from './commands/serve.js';
import { testCommand } from './commands/test.js';
import { selftestCommand } from './commands/selftest.js';
import { checkCommand } from './commands/check.js';
import { loadCommand } from './commands/load.js';
import { reportCommand } from './commands/report.js';
import { sinkCommand } from './commands/sink.js';
import { targetCommand } from './commands/target.js';
import { fuzzCommand } from './commands/fuzz.js';
import { recordCommand } from './commands/record.js';
import { replayCommand } from './commands/replay.js';
import { UsageError } from './usage.js';

const cli = yargs(hideBin(process.argv))
  .scriptName('ces')
  .usage('$0 <command> [options]\n\nConformance and load-testing harness for the Conversational Engagement Service.')
  .command(serveCommand)
  .command(testCommand)
  .command(targetCommand)
  .command(checkCommand)
  .command(selftestCommand)
  .command(loadCommand)
  .command((await import('./commands/bench.js')).benchCommand)
  .command(reportCommand)
  .command(sinkCommand)
  .command(fuzzCommand)
  .command(recordCommand)
  .command(replayCommand)
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
