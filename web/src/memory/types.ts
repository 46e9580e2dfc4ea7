// What the memory view and its dialogs share: its own module, so neither imports the other.
export type FileInfo = { scope: string; file: string; name: string; path: string; type: string | null; description: string; size: number; modifiedAt: number; age: string };
export type Scope = { scope: string; agent: string | null; memoryOff: boolean; defined: boolean; description: string; fileCount: number };
export type WriteResult = { ok: boolean; path: string | null; hash: string | null; previousHash: string | null; refusal: { code: string; message: string; text: string } | null };
export const SHARED = 'shared';
