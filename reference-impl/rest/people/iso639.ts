// ISO 639-1 two-letter language codes, the accepted values of an operator's language_list: the enum of the write schema (one place).
import { allSchemas } from '../../../lib/schemas.js';

export const ISO_639_1: ReadonlySet<string> = new Set(allSchemas()['rest/operator-write.json'].properties.language_list.items.enum as string[]);
