// The `ces` command line (DESIGN.md "CLI", contract): exit 0 all MUST checks pass, 1 a MUST check failed, 2 usage or setup error.
import fs from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type { CommandModule } from 'yargs';
import { UsageError } from './usage.js';
import { MissingPartError } from '../lib/optional-parts.js';
import { COMMANDS } from './command-list.js';
import { ROOT } from '../lib/paths.js';

/** Errors that are one line for the user (exit 2), not a fault of the harness. */
const oneLine = (e: unknown): e is Error => e instanceof UsageError || e instanceof MissingPartError;

const named = hideBin(process.argv)[0];
// The command that runs is loaded whole (its options, its --help); otherwise the list alone, from cli/command-list.ts.
const loaded: Array<CommandModule<any, any>> = named !== undefined && Object.hasOwn(COMMANDS, named)
  ? [await COMMANDS[named]!.load()]
  : Object.values(COMMANDS).map(({ command, describe }) => ({ command, describe, handler: () => {} }));

const cli = yargs(hideBin(process.argv));
// yargs renders a command's help at every run of it (to keep it for a later --help); wrapped to the terminal's width that is about
// 50 ms of CPU per `ces` process, and a run starts tens of them. Help asked for is wrapped; the kept copy is not (shown only in
// the first lines a misuse of the options prints, where a long line is left to the terminal).
const asksHelp = hideBin(process.argv).some((a) => a === '--help' || a === '-h' || a === 'help');
if (!asksHelp) cli.wrap(null);
cli
  .scriptName('ces')
  .usage('$0 <command> [options]\n\nConformance and load-testing harness for the Conversational Engagement Service.')
  .command(loaded)
  .demandCommand(1, 'Name a command; `ces --help` lists them.')
  .strict()
  .recommendCommands()
  .epilogue('Exit codes: 0 every MUST check passed; 1 a MUST check failed; 2 usage or setup error.')
  .fail((msg, err, y) => {
    if (err && !oneLine(err)) throw err;
    // A set-up error of a command (bad target, refused key) is one message; only a misuse of the options shows the usage.
    if (err) { console.error(`ces: ${err.message}`); process.exit(2); }
    console.error(`ces: ${msg}\n`);
    console.error(y.help().toString().split('\n').slice(0, 3).join('\n'));
    console.error('\nRun with --help for every option.');
    process.exit(2);
  })
  .help()
  // Named, not left to yargs: installed as a dependency, yargs looks for package.json from the wrong folder (it said "unknown").
  .version(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);

// yargs also renders the running command's help once its handler has started, kept to show should the handler fail; a failure
// here is one line (the `fail` above) and the help is never shown then: not rendered (about 50 ms of CPU per `ces` process that runs a command).
// Reached through yargs's internal methods; a yargs without them renders it as before.
const usage = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.().getUsageInstance?.();
if (!asksHelp && typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};

try {
  await cli.parseAsync();
} catch (err) {
  if (oneLine(err)) {
    console.error(`ces: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(2);
}
