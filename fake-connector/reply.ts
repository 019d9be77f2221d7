// A connector reply as the fake connector's scenarios and versions write it (its own module: versions.ts and server.ts both use it).
export interface Reply { type: string; [k: string]: unknown }
