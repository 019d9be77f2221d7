// Evidence pictures for reports: service<->connector sequences and webhook attempt timelines, attached to the running check.
import { test } from '@playwright/test';
import { mask } from '../lib/mask.js';

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

/** Attaches a sequence diagram's data (the reports render it as SVG). */
export async function attachSequence(title: string, calls: SequenceCall[]): Promise<void> {
  await test.info().attach(`sequence: ${title}`, { body: mask(JSON.stringify({ kind: 'sequence', title, calls }, null, 2)), contentType: 'application/vnd.ces.sequence+json' });
}

/** Attaches a webhook delivery timeline's data (the reports render it as SVG). */
export async function attachTimeline(title: string, attempts: TimelineAttempt[]): Promise<void> {
  await test.info().attach(`timeline: ${title}`, { body: mask(JSON.stringify({ kind: 'timeline', title, attempts }, null, 2)), contentType: 'application/vnd.ces.timeline+json' });
}
