// The commands of `ces` in the order `--help` lists them: what the list shows, and how to load each one (only the one that runs is loaded).
import type { CommandModule } from 'yargs';

export interface CommandEntry {
  /** The command's yargs `command` string and `describe`, as its module declares them (test/cli-startup.test.ts compares). */
  command: string; describe: string;
  load(): Promise<CommandModule<any, any>>;
}

/**
 * `ces --help`, no command and an unknown command show this list without loading any command module: loading them all costs a
 * second of start-up (the reference implementation, Playwright, the fuzzer...), where the list alone takes a few milliseconds.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  setup: { command: 'setup', describe: 'Install or locate the optional parts: k6 at the pinned version (load, bench), Chromium (the browser suite); check the SQLite build', load: async () => (await import('./commands/setup.js')).setupCommand },
  serve: { command: 'serve', describe: 'Start the reference service, fake connector and webhook sink (HTTPS, generated CA) and print `ready <json>`', load: async () => (await import('./commands/serve.js')).serveCommand },
  test: { command: 'test', describe: 'Run the conformance suites against a target file, or against the embedded reference implementation when none is given', load: async () => (await import('./commands/test.js')).testCommand },
  target: { command: 'target <action>', describe: 'Write and check target files (`ces target init --help`)', load: async () => (await import('./commands/target.js')).targetCommand },
  check: { command: 'check <what> <url>', describe: 'Judge a vendor bot connector or webhook receiver clause by clause, as the service would treat it', load: async () => (await import('./commands/check.js')).checkCommand },
  selftest: { command: 'selftest', describe: 'Run each deviation against the checks of its clauses and fail unless every deviation is caught; run each alternative (another conforming decision) against every check of its suites and fail unless it makes its REF clauses report and nothing else', load: async () => (await import('./commands/selftest.js')).selftestCommand },
  load: { command: 'load <scenario>', describe: 'Run a k6 load scenario (thresholds decide pass/fail) against a target file, or the embedded reference implementation', load: async () => (await import('./commands/load.js')).loadCommand },
  bench: { command: 'bench', describe: 'Benchmark the reference implementation (REST throughput, message-path latency, webhook rate, polling capacity) against baselines, and the start-up of ces; writes reports/bench.json', load: async () => (await import('./commands/bench.js')).benchCommand },
  report: { command: 'report', describe: "Rebuild reports/index.html and each run's evidence.html from the runs under reports/; --compare A B shows clauses whose verdict changed", load: async () => (await import('./commands/report.js')).reportCommand },
  sink: { command: 'sink', describe: 'Run the webhook sink alone (HTTPS): verifies X-Service-Signature, validates payloads, records deliveries, answers per plan; control API under /_control', load: async () => (await import('./commands/sink.js')).sinkCommand },
  wire: { command: 'wire', describe: 'Run the wire proxy alone (HTTPS) in front of a fake connector and a webhook sink: `ces selftest --wire --target F` switches its faults', load: async () => (await import('./commands/wire.js')).wireCommand },
  fuzz: { command: 'fuzz', describe: "Generated requests from the target's OpenAPI document and GraphQL schema; each failure shrunk to a minimal curl reproduction", load: async () => (await import('./commands/fuzz.js')).fuzzCommand },
  explore: { command: 'explore <what> <url>', describe: "Random conversations against a bot connector, judged by the spec; each failure shrunk to the shortest session and written as a transcript `ces replay --connector` replays", load: async () => (await import('./commands/explore.js')).exploreCommand },
  record: { command: 'record <url>', describe: 'Hold one conversation with a bot connector from a script, through the reference service, and save its transcript', load: async () => (await import('./commands/record.js')).recordCommand },
  replay: { command: 'replay <files..>', describe: 'Replay recorded conversations against a bot connector (or a service target) and report every change', load: async () => (await import('./commands/replay.js')).replayCommand },
};
