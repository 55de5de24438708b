// Types for scripts/build-dist.mjs (plain JavaScript so it runs before anything is compiled).
export declare const DIST: string;
export declare function staleReason(): string | undefined;
export declare function buildDist(opts?: { ifStale?: boolean; quiet?: boolean; allowTypeErrors?: boolean }): 'built' | 'up to date';
