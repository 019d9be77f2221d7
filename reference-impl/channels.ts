// The service's channels in one place: onsite (chat, call, video) and offsite messaging channels, `mobile_app` among them (G30).

export const ONSITE_CHANNELS = ['chat', 'call', 'video'] as const;
/** Offsite channels: the neutral-name networks, SMS, and the mobile app (G30: so that the spec's MOBILE_APP can be exercised). */
export const OFFSITE_CHANNELS = ['social_a', 'social_b', 'social_c', 'social_d', 'social_e', 'sms', 'mobile_app'] as const;
export const CHANNELS: readonly string[] = [...ONSITE_CHANNELS, ...OFFSITE_CHANNELS];

const OFFSITE: ReadonlySet<string> = new Set(OFFSITE_CHANNELS);
/** Offsite conversations close after 7 days of inactivity and name no external visitor id (spec, Payload shapes). */
export const isOffsite = (channel: string): boolean => OFFSITE.has(channel);
