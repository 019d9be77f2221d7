// Absolute paths of the project's folders, so every part finds fixtures and reports the same way.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = path.join(ROOT, 'fixtures');
export const SCHEMAS_DIR = path.join(FIXTURES, 'schemas');
/** Generated reports; CES_REPORTS_DIR moves them (tests use it so they never clobber the real reports/). */
export const REPORTS = process.env.CES_REPORTS_DIR ? path.resolve(process.env.CES_REPORTS_DIR) : path.join(ROOT, 'reports');
/** The landing page's template (CSS, scripts), kept in git under reports/template/ whatever CES_REPORTS_DIR says. */
export const REPORT_TEMPLATE = path.join(ROOT, 'reports', 'template');
