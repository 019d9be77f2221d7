// The chat page's "Save transcript": one conversation as a transcript file (transcripts/format.ts), the same format `ces record` writes and `ces replay` plays.
import type { ServiceContext } from '../context.js';
import { list } from '../store/db.js';
import { buildTranscript } from '../../transcripts/from-service.js';
import { formatTranscript, slug } from '../../transcripts/format.js';
import { knownSecrets, publicUrl } from './data.js';

/** The transcript file of a conversation (`{file name, text}`), or null when there is no such conversation. */
export function conversationTranscriptFile(ces: ServiceContext, uuid: string): { fileName: string; text: string } | null {
  const row = ces.db.prepare('SELECT id, website_id, client_id FROM conversations WHERE uuid = ?').get(uuid) as { id: number; website_id: number; client_id: number } | undefined;
  if (!row) return null;
  const view = ces.bots.runtime.view(row.id);
  const bot = view.botOperatorId === null ? undefined : ces.db.prepare(`SELECT b.id_bot, b.distribution_rule_ids, a.base_url, o.pseudo, o.language_list FROM bot_operators b
    JOIN connector_installs i ON i.id = b.install_id JOIN connector_apps a ON a.id = i.app_id JOIN operators o ON o.id = b.operator_id WHERE b.operator_id = ?`).get(view.botOperatorId) as
    { id_bot: string | null; distribution_rule_ids: string; base_url: string; pseudo: string; language_list: string } | undefined;
  const rules = list<string>(bot?.distribution_rule_ids).map((id) => ces.db.prepare('SELECT id, label FROM distribution_rules WHERE id = ?').get(id) as { id: string; label: string } | undefined).filter((r): r is { id: string; label: string } => !!r);
  const routing = ces.db.prepare('SELECT label, operator_ids FROM routing_rules WHERE client_id = ? AND website_id = ? ORDER BY created_at, id').all(row.client_id, row.website_id) as Array<{ label: string; operator_ids: string }>;
  const rule = routing.find((r) => list<number>(r.operator_ids).includes(view.botOperatorId ?? -1));
  const firstText = view.transcript.find((e: { role: string }) => e.role === 'visitor')?.payload?.value;
  const { transcript } = buildTranscript(view, ces.bots.exchanges.ofConversation(row.id), {
    name: typeof firstText === 'string' && firstText ? firstText.slice(0, 80) : `conversation ${uuid}`,
    by: 'chat page', connectorUrl: bot ? publicUrl(bot.base_url).replace(/\/+$/, '') : '', rules, idBot: bot?.id_bot ?? null,
    pseudo: bot?.pseudo, language: list<string>(bot?.language_list)[0], websiteId: String(row.website_id), routingRule: rule?.label,
  });
  let text = formatTranscript(transcript);
  // The transcript never holds a secret; this guard keeps it so whatever a connector echoes back.
  for (const s of knownSecrets(ces)) text = text.split(s).join('***');
  return { fileName: `${slug(transcript.name)}.json`, text };
}
