// Operator ids are never reused: SQLite gives a deleted last row's id again, so every creator of operators takes ids from here.
import { getMeta, setMeta, type Db } from '../../store/db.js';

/** meta key of the highest operator id ever given. */
const OPERATOR_LAST_ID = 'rest_operator_last_id';

/** The next operator id; call inside the transaction that inserts the operator with it. */
export function nextOperatorId(db: Db): number {
  const id = Math.max(Number(getMeta(db, OPERATOR_LAST_ID) ?? 0), (db.prepare('SELECT MAX(id) AS m FROM operators').get() as { m: number | null }).m ?? 0) + 1;
  setMeta(db, OPERATOR_LAST_ID, String(id));
  return id;
}
