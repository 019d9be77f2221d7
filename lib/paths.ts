// Absolute paths of the project's folders, so every part finds fixtures and reports the same way.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = path.join(ROOT, 'fixtures');
export const SCHEMAS_DIR = path.join(FIXTURES, 'schemas');
export const REPORTS = path.join(ROOT, 'reports');
