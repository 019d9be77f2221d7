// Evidence pictures for reports (sequences, timelines): kept here for the vendor-check suites; the home is suites/fixtures/evidence.ts.
export { attachSequence, attachTimeline, pictureName, type SequenceCall, type TimelineAttempt } from './fixtures/evidence.js';
