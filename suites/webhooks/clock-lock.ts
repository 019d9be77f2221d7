// Former names of the suites' clock lock (suites/clock-lock.ts), kept for callers not yet moved to withClockLock.
import { withClockLock } from '../clock-lock.js';

export const timingSection = <T>(baseUrl: string, fn: () => Promise<T>): Promise<T> => withClockLock({ base_url: baseUrl }, 'shared', fn);
export const clockSection = <T>(baseUrl: string, fn: () => Promise<T>): Promise<T> => withClockLock({ base_url: baseUrl }, 'exclusive', fn);
