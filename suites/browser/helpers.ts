// Browser suite helpers: the console pages driven in Chromium, the fake connector and webhook sink programmed per test, screenshots, page-error guard.
import { mergeTests, type Page, type Locator } from '@playwright/test';
import { test as targetTest, expect, needs, requirePart } from '../fixtures/target.js';
import { test as simTest } from '../fixtures/sim.js';
import { test as partnersTest } from '../fixtures/partners.js';
import { withClockLock } from '../fixtures/clock.js';
import { clauses } from '../fixtures/evidence.js';
import { HarnessError, notJudged } from '../verdicts.js';
import { BotDriver, uniq, text, type Reply } from '../bot-runtime/helpers.js';
import { Hooks } from '../webhooks/helpers.js';
import { findChromium, chromiumMissing } from '../../lib/optional-parts.js';
import { withCopies } from '../fixtures/copies.js';

export { expect, needs, clauses, uniq, text, type Reply };
const base = targetTest;

/** Deadline for what follows a click or a message at once (connector round trip, live feed, a loaded CI machine). */
export const PROMPT_MS = 10_000;

/** The visitor chat window of one test. */
export class ChatWindow {
  constructor(readonly page: Page, readonly url: string) {}

  async open(): Promise<void> {
    await this.page.goto(this.url);
    await expect(this.page.locator('body[data-ready="true"]'), 'the chat page starts (config loaded)').toBeVisible();
  }

  /** Starts a conversation with a first visitor message; returns the conversation id the page shows. */
  async start(firstText: string): Promise<string> {
    const id = this.page.locator('#conversation-id');
    const before = (await id.textContent()) ?? '';
    await this.page.getByLabel('Your first message').fill(firstText);
    await this.page.getByRole('button', { name: 'Start conversation' }).click();
    await expect(id, 'the page shows the new conversation').toHaveText(/^[0-9a-f-]{36}$/, { timeout: PROMPT_MS });
    await expect(id, 'a new conversation, not the previous one').not.toHaveText(before || 'none', { timeout: PROMPT_MS });
    return (await id.textContent())!;
  }

  async say(t: string): Promise<void> {
    await this.page.getByLabel('Message', { exact: true }).fill(t);
    await this.page.getByRole('button', { name: 'Send', exact: true }).click();
  }

  /** Bot (or operator) messages whose bubble contains `t`. */
  bot(t: string | RegExp): Locator { return this.page.locator('#transcript li[data-role="bot"]').filter({ hasText: t }); }
  visitor(t: string): Locator { return this.page.locator('#transcript li[data-role="visitor"]').filter({ hasText: t }); }
  system(event: string): Locator { return this.page.locator(`#transcript li[data-role="system"][data-event="${event}"]`); }
  payload(contentType: string): Locator { return this.page.locator(`#transcript li[data-role="bot"][data-content-type="${contentType}"]`); }
  get scheduled(): Locator { return this.page.locator('#scheduled'); }
}

/** The end of every browser check: the pages ran without script errors (a page that throws is broken even when the asserted element shows). */
export function noPageErrors(errors: string[]): void {
  expect(errors, 'the console pages run without script errors').toEqual([]);
}

/** Runs a check that relies on real-time timers (awaits, transfer timeouts, webhook retries) while no other check moves the service clock. */
export async function realTime<T>(baseUrl: string, fn: () => Promise<T>): Promise<T> { return withClockLock({ base_url: baseUrl }, 'shared', fn); }

/** Attaches a screenshot of the page to the report, as a file of the run folder so the evidence page shows it too. */
export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  const info = base.info();
  const file = info.outputPath(`${name.replace(/[^\w-]+/g, '-').replace(/^-|-$/g, '')}.png`);
  await page.screenshot({ fullPage, path: file });
  await info.attach(name, { path: file, contentType: 'image/png' });
}

export const test = withCopies(mergeTests(targetTest, simTest, partnersTest).extend<{ chromium: void; bot: BotDriver; chat: ChatWindow; hooks: Hooks; pageErrors: string[] }>({
  // Before the page (the first auto fixture of this suite): without a browser the check is SKIP with the reason and the command
  // that fixes it, never a failure. `ces test` stops first in CI, where a missing browser must not pass unseen (cli/commands/test.ts).
  chromium: [async ({}, use) => {
    const found = findChromium();
    test.skip(!found.path, chromiumMissing(found));
    await use();
  }, { auto: true }],
  // Script errors of the pages, collected for the check to judge at its end (noPageErrors): a broken page is the target's failure,
  // so it is never asserted in this fixture's tear-down, where it would be a harness error.
  pageErrors: [async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    await use(errors);
  }, { auto: true }],
  bot: async ({ sim, connector, target }, use) => {
    // Shared clock lock: checks of other suites that move the service clock wait, so scheduled messages fire on time here.
    await withClockLock(target, 'shared', async () => use(new BotDriver(sim, connector)));
  },
  chat: async ({ page, target, bot }, use) => {
    requirePart('the chat window', 'console');
    // The chat page's default website routes to the first seeded bot: wait until its creation flow is done and its polls say available.
    // That depends on the target: a bot that never becomes ready leaves the check NOT JUDGED, never a harness error of this fixture.
    try { await bot.seededBots('conv'); } catch (e) {
      if (e instanceof HarnessError) throw e;
      notJudged(`the seeded bot of the chat window never became ready and available: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
    }
    await use(new ChatWindow(page, target.chat_url!));
  },
  hooks: async ({ api, target }, use) => {
    const h = new Hooks(api, target);
    await use(h);
    await h.unsubscribeAll();
  },
}));
