// vouch export --format sep3004: a log range's decisions as one segment of SEP-3004 audit records
// (audit-record-contract/1), in one JSON file. Read-only, from the signed log only.
import { createWriteStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import { exportSep3004, planExport } from '../../audit/index.js';
import { storeExportSource } from '../../audit/node-bundle.js';
import { VOUCH_ENGINE_VERSION } from '../../decide/index.js';
import { StoreError } from '../../errors.js';
import { tenantKeysForVerify } from '../../store/tenant-keys.js';
import { loadKeys } from '../../store/node.js';
import { EXIT, type Io } from '../io.js';
import { openLogReadOnly, originOf } from './_audit-open.js';

export interface Sep3004ExportArgs { out: string; data: string; tenant: string; keyName: string; from?: number; to?: number; json: boolean }

/** How a record names its receipt (the export writes it, `vouch verify --data` checks it). */
export function sep3004ReceiptOf(tenant: string): (seq: number) => { command: string; url: string } {
  const tenantFlag = tenant === 'default' ? '' : ` --tenant ${tenant}`;
  return (seq) => ({ command: `vouch receipt ${seq}${tenantFlag}`, url: `/v1/entries/${seq}` });
}

export async function exportSep3004Command(a: Sep3004ExportArgs, io: Io): Promise<number> {
  const store = openLogReadOnly(a.data, a.tenant);
  try {
    const origin = originOf(store, a.tenant, a.keyName);
    // The log's key history, checked: the checkpoints the export rests on must verify with it.
    const { keys, problems } = tenantKeysForVerify(store, origin, loadKeys(a.data, a.keyName).keys, a.keyName, { tail: false });
    if (problems.length) throw new StoreError('ERR_STORE_INCONSISTENT', `the log of tenant ${a.tenant} cannot be trusted (\`vouch log verify\` says more): ${problems.map((p) => p.message).join('; ')}`);
    const source = storeExportSource(store, origin);
    const plan = await planExport(source, { from: a.from, to: a.to });
    const chunks = exportSep3004(source, plan, {
      verifiers: keys.verifiers,
      receipt: sep3004ReceiptOf(a.tenant),
      tool: { name: 'vouch', version: VOUCH_ENGINE_VERSION },
      created: new Date().toISOString(),
    });
    const file = createWriteStream(a.out, { flags: 'wx' });
    try {
      // The first chunk is produced only after every entry was checked: nothing is written for a log that fails.
      for await (const chunk of chunks) if (!file.write(chunk)) await once(file, 'drain');
      file.end();
      await once(file, 'close');
    } catch (e) {
      file.destroy();
      rmSync(a.out, { force: true }); // no half-written export left behind
      throw e;
    }
    plan.notes = plan.notes.map((n) => n.replace('the bundle extends', 'the export extends'));
    const note = plan.notes.map((n) => `note: ${n}`);
    if (a.json) io.out(JSON.stringify({ out: a.out, origin, range: { from: plan.from, to: plan.to }, notes: plan.notes }));
    else {
      io.out(`exported the decisions of ${origin} entries [${plan.from}, ${plan.to}) as SEP-3004 records (audit-record-contract/1) to ${a.out}`);
      for (const n of note) io.out(n);
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}
