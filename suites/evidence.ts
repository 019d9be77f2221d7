// Evidence pictures for reports: service<->connector sequences and webhook attempt timelines, attached to the running check.
import { test } from '@playwright/test';
import { mask } from '../lib/mask.js';
import { sequenceSvg, timelineSvg } from '../lib/svg.js';

export interface SequenceCall {
  /** Who called whom. */
  from: 'visitor' | 'service' | 'connector';
  to: 'visitor' | 'service' | 'connector';
  label: string;
  /** Measured duration of the call, ms. */
  ms?: number;
  /** Ms since the start of the scenario. */
  at: number;
  note?: string;
  failed?: boolean;
}

export interface TimelineAttempt { attempt: number; atMs: number; status: number | string; deliveryId?: string; correlationId?: string }

/** Name of the rendered picture attached next to the data (the evidence page renders the data itself and skips it). */
export const pictureName = (dataName: string) => `${dataName}.svg`;

/** Attaches a sequence diagram's data and its SVG rendering (Playwright's HTML report and Allure show the picture). */
export async function attachSequence(title: string, calls: SequenceCall[]): Promise<void> {
  const name = `sequence: ${title}`;
  await test.info().attach(name, { body: mask(JSON.stringify({ kind: 'sequence', title, calls }, null, 2)), contentType: 'application/vnd.ces.sequence+json' });
  await test.info().attach(pictureName(name), { body: mask(sequenceSvg({ kind: 'sequence', title, calls })), contentType: 'image/svg+xml' });
}

/** Attaches a webhook delivery timeline's data and its SVG rendering. */
export async function attachTimeline(title: string, attempts: TimelineAttempt[]): Promise<void> {
  const name = `timeline: ${title}`;
  await test.info().attach(name, { body: mask(JSON.stringify({ kind: 'timeline', title, attempts }, null, 2)), contentType: 'application/vnd.ces.timeline+json' });
  await test.info().attach(pictureName(name), { body: mask(timelineSvg({ kind: 'timeline', title, attempts })), contentType: 'image/svg+xml' });
}
