// Action groups come from the schema (`memberOf`). Requests are authorized without the schema
// (it would reject tool arguments it does not list), so the action hierarchy is passed as entities.
import type { Json } from '../canonical/index.js';
import type { EngineEntity } from './cedar-engine.js';

function obj(v: Json | undefined): { [k: string]: Json } | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
}

/** One entity per action that belongs to a group, with its groups as parents. */
export function actionEntitiesOf(schema: { [ns: string]: Json }): EngineEntity[] {
  const out: EngineEntity[] = [];
  for (const ns of Object.keys(schema).sort()) {
    const actionType = ns === '' ? 'Action' : `${ns}::Action`;
    const actions = obj(obj(schema[ns])?.actions);
    if (!actions) continue;
    for (const name of Object.keys(actions).sort()) {
      const memberOf = obj(actions[name])?.memberOf;
      if (!Array.isArray(memberOf) || memberOf.length === 0) continue;
      const parents = memberOf.flatMap((m) => {
        const o = obj(m);
        if (!o || typeof o.id !== 'string') return [];
        return [{ type: typeof o.type === 'string' ? o.type : actionType, id: o.id }];
      });
      out.push({ uid: { type: actionType, id: name }, attrs: {}, parents });
    }
  }
  return out;
}
