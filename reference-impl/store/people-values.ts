// The values of people fields the seed draws from and the operator writes accept: roles and interface languages.
export const ROLES = ['expert', 'operator', 'manager', 'admin'] as const;
export const LANGUAGE_ADMIN_WEBSITE = ['en', 'de', 'es', 'it', 'pt', 'nl', 'se', 'tw', 'ja', 'ko', 'fr'] as const;
export const LANGUAGE_ADMIN_OPERATOR = ['de', 'en', 'es', 'fr'] as const;
