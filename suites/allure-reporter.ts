// Allure's Playwright reporter, writing its results without an fsync per file: the results folder is read once, by `allure generate` after the run.
import fs from 'node:fs';
import path from 'node:path';
import type { Suite } from '@playwright/test/reporter';
import { AllureReporter as AllurePlaywright } from 'allure-playwright';

/** The writer methods of allure-js-commons' FileSystemWriter that are called per check (results, containers, attachments). */
interface Writer {
  writeAttachment(name: string, content: Buffer): void;
  writeAttachmentFromPath(name: string, from: string): void;
  writeGroup(result: { uuid: string }): void;
  writeResult(result: { uuid: string }): void;
  writeGlobals(name: string, globals: unknown): void;
}

/**
 * Allure's own writer (allure-js-commons FileSystemWriter) fsyncs every file it writes, in the Playwright runner's event loop: 10 s
 * of a 21 s run of the GraphQL suite while other runs wrote to the same disk (a CPU profile of the runner, 2026-11-26), the runner
 * blocked that long. The results are a run's working files, read by `allure generate` when the run has ended (cli/allure.ts): a
 * rename from a temporary file keeps each one whole, as Allure's writer does, without forcing it to the disk.
 */
function unsyncedWriter(resultsDir: string, original: Writer): Writer {
  const publish = (name: string, write: (tmp: string) => void) => {
    fs.mkdirSync(resultsDir, { recursive: true });
    const to = path.join(resultsDir, name);
    const tmp = path.join(resultsDir, `.ces-write-${process.pid}-${name}.tmp`);
    write(tmp);
    fs.renameSync(tmp, to);
  };
  const json = (name: string, value: unknown) => publish(name, (tmp) => fs.writeFileSync(tmp, JSON.stringify(value), 'utf8'));
  // The rest (environment.properties, categories.json: once per run) stay with Allure's own writer.
  return Object.assign(Object.create(original) as Writer, {
    writeAttachment: (name: string, content: Buffer) => publish(name, (tmp) => fs.writeFileSync(tmp, content)),
    writeAttachmentFromPath: (name: string, from: string) => publish(name, (tmp) => fs.copyFileSync(from, tmp)),
    writeGroup: (result: { uuid: string }) => json(`${result.uuid}-container.json`, result),
    writeResult: (result: { uuid: string }) => json(`${result.uuid}-result.json`, result),
    writeGlobals: (name: string, globals: unknown) => json(name, globals),
  });
}

export default class AllureReporter extends AllurePlaywright {
  private readonly resultsDir: string;

  constructor(options: ConstructorParameters<typeof AllurePlaywright>[0] & { resultsDir: string }) {
    super(options);
    this.resultsDir = options.resultsDir;
  }

  override onBegin(suite: Suite): void {
    super.onBegin(suite);
    const runtime = (this as unknown as { allureRuntime: { writer: Writer } }).allureRuntime;
    runtime.writer = unsyncedWriter(this.resultsDir, runtime.writer);
  }
}
