// The visitor chat window in Chromium: payload types, markdown, quick replies, scheduled messages, transfer and close lines, phone size and keyboard.
import { test, expect, clauses, uniq, text, shot, realTime, noPageErrors, PROMPT_MS } from './helpers.js';
import { under } from '../verdicts.js';
import { LIMITS } from '../../lib/limits.js';


test('every payload type is rendered: card, product offer, file (image preview and download link), carousel, slider; images at 240x120',
  clauses('CONSOLE-PAY-01', 'CONSOLE-PAY-02', 'CONSOLE-PAGE-01').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, target, pageErrors }) => under('CONSOLE-PAY-01', async () => {
    under('CONSOLE-PAGE-01', () => {
      expect(target.chat_url, 'the ready info names the chat window').toMatch(/\/console\/chat$/);
      expect(target.inspector_url, 'the ready info names the inspector').toMatch(/\/console\/inspector$/);
    });
    // Page assets come from the service only (no CDN, nothing fetched at run time elsewhere).
    const foreign: string[] = [];
    const origin = new URL(target.chat_url!).origin;
    page.on('request', (r) => { if (['script', 'stylesheet', 'font', 'document'].includes(r.resourceType()) && new URL(r.url()).origin !== origin) foreign.push(r.url()); });
    const pdf = uniq('pdf please');
    await bot.script(pdf, [{ type: 'message', payload: { contentType: 'file', fileName: 'terms.pdf', mimeType: 'application/pdf', url: 'https://shop.example/terms.pdf' } }]);

    await chat.open();
    await chat.start('rich content');
    const card = chat.payload('card/content').locator('article.card');
    await expect(card, 'card/content is shown').toBeVisible({ timeout: PROMPT_MS });
    await expect(card.getByRole('heading', { name: 'Our offer' }), 'card title').toBeVisible();
    await expect(card, 'card text').toContainText('A card with a link');
    await expect(card.getByRole('link', { name: 'Open' }), 'card action is a link').toHaveAttribute('href', 'https://shop.example/item/1');

    const offer = chat.payload('product-offer').locator('article.offer');
    await expect(offer.getByRole('heading', { name: 'Blue shoes' }), 'offer name').toBeVisible({ timeout: PROMPT_MS });
    await expect(offer.locator('.price'), 'price').toHaveText('59.00 EUR');
    await expect(offer.locator('.offer-price'), 'offer price').toHaveText('49.00 EUR');
    await expect(offer.locator('.availability'), 'availability status').toHaveText('Available');
    await expect(offer.getByRole('link', { name: 'Open' }), 'offer action is a link').toHaveAttribute('href', 'https://shop.example/item/1');

    const file = chat.payload('file');
    await expect(file.locator('img.preview'), 'an image file gets a preview').toBeVisible({ timeout: PROMPT_MS });
    await expect(file.getByRole('link', { name: /Download card\.png/ }), 'and a download link').toHaveAttribute('href', /\/images\/card\.png$/);

    const carousel = chat.payload('bundle/card').locator('.strip.carousel');
    await expect(carousel, 'bundle/card is a carousel').toBeVisible({ timeout: PROMPT_MS });
    await expect(carousel.locator('article.card'), 'with every card').toHaveCount(2);
    await carousel.getByRole('button', { name: 'Next card' }).click();
    await expect(carousel.locator('.position'), 'the carousel moves to the next card').toHaveText('2 / 2');

    const slider = chat.payload('bundle/product-offer').locator('.strip.slider');
    await expect(slider, 'bundle/product-offer is a slider').toBeVisible({ timeout: PROMPT_MS });
    await expect(slider.locator('article.offer'), 'with every offer').toHaveCount(2);
    const track = slider.locator('.track');
    const widths = await track.evaluate((t) => ({ visible: t.clientWidth, card: (t.firstElementChild as HTMLElement).offsetWidth }));
    expect(widths.visible, 'a slider shows one offer at a time').toBeLessThan(2 * widths.card);
    await expect(slider.locator('.position')).toHaveText('1 / 2');
    await slider.getByRole('button', { name: 'Next offer' }).click();
    await expect(slider.locator('.position'), 'the slider moves to the next offer').toHaveText('2 / 2');

    // Every Image object: 240x120 on the page, alt text from its description, and the picture really loaded (CONSOLE-PAY-02).
    const imgs = page.locator('#transcript img.media');
    expect(await imgs.count(), 'images of the card, offer, file, carousel and slider').toBeGreaterThanOrEqual(7);
    await under('CONSOLE-PAY-02', async () => {
      for (const img of await imgs.all()) {
        await img.scrollIntoViewIfNeeded();
        const box = await img.evaluate((i: HTMLImageElement) => ({ w: i.getBoundingClientRect().width, h: i.getBoundingClientRect().height, alt: i.alt }));
        expect(box.w, 'image width (spec: 240x120)').toBe(LIMITS.imageWidth);
        expect(box.h, 'image height (spec: 240x120)').toBe(LIMITS.imageHeight);
        expect(box.alt, 'alt text from Image.description').not.toBe('');
        await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth), { message: 'the picture loads', timeout: PROMPT_MS }).toBe(LIMITS.imageWidth);
      }
    });
    await shot(page, 'chat: every payload type');

    // A file that is not an image: a download link only.
    await chat.say(pdf);
    const pdfFile = chat.payload('file').filter({ hasText: 'terms.pdf' });
    await expect(pdfFile.getByRole('link', { name: /Download terms\.pdf/ }), 'a non-image file is a download link').toHaveAttribute('href', 'https://shop.example/terms.pdf', { timeout: PROMPT_MS });
    await expect(pdfFile.locator('img'), 'and has no preview').toHaveCount(0);
    under('CONSOLE-PAGE-01', () => expect(foreign, 'page documents, scripts, styles and fonts come from the service').toEqual([]));
    noPageErrors(pageErrors);
  }));

test('markdown in text values follows the spec table (Supported, Partial, Not supported as plain text)',
  clauses('CONSOLE-MD-01').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, pageErrors }) => {
    const first = uniq('markdown');
    const texts = [
      '**bold** *italic* ***both*** ~~struck~~ `code` \\*not italic\\*\nsecond line',
      '# Title one\n## Title two\n\n| Plan | Price |\n|---|--:|\n| gold | 10 |\n\n---\n\n> quote\n>> nested quote',
      '- item\n  - nested item\n- [x] done task\n- [ ] open task\n\n1. first\n2. second\n\n```\nfenced <code>\n```',
      'Write to <help@example.com> or see <https://quick.example/> and [the shop](https://shop.example/ "hover text"), ![a picture](https://img.example/p.png), [anchor](#top). Note[^1].\n\n[^1]: The footnote.',
      'Term\n: definition',
    ];
    for (const t of texts) expect(t.length, 'each text value stays within the 450-character limit').toBeLessThanOrEqual(LIMITS.botTextMax);
    await bot.script(first, texts.map((t) => text(t)));
    await chat.open();
    await chat.start(first);
    const md = (i: number) => chat.page.locator('#transcript li[data-role="bot"] .md').filter({ hasText: i === 0 ? 'second line' : i === 1 ? 'Title one' : i === 2 ? 'nested item' : i === 3 ? 'help@example.com' : 'definition' });
    await expect(md(4), 'every markdown message arrives').toBeVisible({ timeout: PROMPT_MS });

    const m0 = md(0);
    await expect(m0.locator('strong', { hasText: /^bold$/ }), 'bold').toBeVisible();
    await expect(m0.locator('em', { hasText: /^italic$/ }), 'italic').toBeVisible();
    await expect(m0.locator('strong > em', { hasText: 'both' }), 'bold italic').toBeVisible();
    await expect(m0.locator('del', { hasText: 'struck' }), 'strikethrough').toBeVisible();
    await expect(m0.locator('code', { hasText: 'code' }), 'inline code').toBeVisible();
    await expect(m0, 'backslash escapes show the character').toContainText('*not italic*');
    await expect(m0.locator('br'), 'line break').toHaveCount(1);

    const m1 = md(1);
    await expect(m1.getByRole('heading'), 'titles, all at the same level').toHaveCount(2);
    for (const h of await m1.getByRole('heading').all()) await expect(h).toHaveAttribute('aria-level', '3');
    await expect(m1.locator('table th'), 'table head').toHaveText(['Plan', 'Price']);
    await expect(m1.locator('table td').nth(1), 'table cell').toHaveText('10');
    expect(await m1.locator('.md-table').evaluate((e) => getComputedStyle(e).overflowX), 'table: no horizontal scroll (wide content is cut)').toBe('hidden');
    await expect(m1.locator('hr'), 'horizontal rule').toHaveCount(1);
    await expect(m1.locator('blockquote blockquote', { hasText: 'nested quote' }), 'nested blockquote').toBeVisible();

    const m2 = md(2);
    await expect(m2.locator('ul ul li', { hasText: 'nested item' }), 'nested unordered list').toBeVisible();
    await expect(m2.locator('li.md-task input[type=checkbox]:checked'), 'task list: done').toHaveCount(1);
    await expect(m2.locator('li.md-task input[type=checkbox]:not(:checked)'), 'task list: open').toHaveCount(1);
    await expect(m2.locator('ol li'), 'ordered list').toHaveText(['first', 'second']);
    await expect(m2.locator('pre code'), 'fenced code block, its content as text').toHaveText('fenced <code>');

    const m3 = md(3);
    await expect(m3.getByRole('link', { name: 'help@example.com' }), 'e-mail autolink').toHaveAttribute('href', 'mailto:help@example.com');
    await expect(m3.getByRole('link', { name: 'https://quick.example/' }), 'quick link').toHaveAttribute('href', 'https://quick.example/');
    const shop = m3.getByRole('link', { name: 'the shop' });
    await expect(shop, 'link').toHaveAttribute('href', 'https://shop.example/');
    await expect(shop, 'links have no hover description (Partial)').not.toHaveAttribute('title', /.*/);
    await expect(m3.getByRole('link', { name: 'a picture' }), 'images are shown as a link (Partial)').toHaveAttribute('href', 'https://img.example/p.png');
    await expect(m3.locator('img'), 'no picture is embedded for a markdown image').toHaveCount(0);
    await expect(m3, 'a link to an anchor is not supported: plain text').toContainText('[anchor](#top)');
    await expect(m3.locator('sup a'), 'footnote reference').toHaveText('1');
    await expect(m3.locator('.md-footnotes li'), 'footnote text').toContainText('The footnote.');

    const m4 = md(4);
    await expect(m4, 'a definition list is not supported: plain text').toContainText(': definition');
    await expect(m4.locator('dl, dt, dd'), 'no definition list is made').toHaveCount(0);
    await shot(page, 'chat: markdown');
    noPageErrors(pageErrors);
  });

test('bot text is never injected as HTML: markup is shown as text and runs nothing', clauses('CONSOLE-MD-02').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, pageErrors }) => {
  const first = uniq('markup');
  const markup = '<img src="data:," onerror="window.__xss=1"><script>window.__xss=2</script><b>not bold</b> [js](javascript:window.__xss=3)';
  await bot.script(first, [text(markup)]);
  await chat.open();
  await chat.start(first);
  const m = chat.bot('window.__xss=2').locator('.md');
  await expect(m, 'markup in bot text is shown as text').toContainText('<img src="data:," onerror="window.__xss=1"><script>window.__xss=2</script><b>not bold</b>', { timeout: PROMPT_MS });
  await expect(m.locator('img, script, b'), 'no element is made from bot markup').toHaveCount(0);
  await expect(m.getByRole('link'), 'a javascript: URL is not a link').toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), 'bot text runs no script').toBeUndefined();
  await shot(page, 'chat: markup shown as text');
  noPageErrors(pageErrors);
});

test('quick replies are buttons; a click (or Enter) sends their text and the bot answers it', clauses('CONSOLE-QR-01').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, pageErrors }) => {
  const first = uniq('quick replies');
  await bot.script(first, [text('Which colour?', ['Red', 'Blue'])], { then: { Blue: [text('You chose blue.')], Red: [text('You chose red.')] } });
  await chat.open();
  const id = await chat.start(first);
  const question = chat.bot('Which colour?');
  await expect(question.getByRole('button', { name: 'Blue' }), 'quick replies are buttons').toBeVisible({ timeout: PROMPT_MS });
  await shot(page, 'chat: quick replies');
  await question.getByRole('button', { name: 'Blue' }).focus();
  await page.keyboard.press('Enter');
  await expect(chat.visitor('Blue'), 'the click is sent as the visitor message "Blue"').toBeVisible({ timeout: PROMPT_MS });
  await expect(chat.bot('You chose blue.'), 'the bot answers the quick reply').toBeVisible({ timeout: PROMPT_MS });
  const sent = await bot.requests({ idConversation: id, role: 'visitor' });
  expect(sent.requests.map((r) => r.text), 'the connector received the quick reply as text').toContain('Blue');
  await expect(question.getByRole('button', { name: 'Red' }), 'answered quick replies are no longer offered').toBeDisabled();
  await shot(page, 'chat: quick reply answered');
  noPageErrors(pageErrors);
});

test('a scheduled (await) message is announced then appears on time; when the visitor speaks first it disappears and never appears',
  clauses('CONSOLE-AWAIT-01').needs('console', 'connector_url', 'sim'), async ({ chat, bot, page, api, target, pageErrors }) => {
    await realTime(target.base_url, async () => {
      const AWAIT_MS = 1_500;
      const onTime = uniq('await on time');
      await bot.script(onTime, [text('Give me a second.'), { type: 'await', duration: { unit: 'millis', value: AWAIT_MS } }, text('Here is the scheduled answer.')]);
      await chat.open();
      const id = await chat.start(onTime);
      await expect(chat.scheduled, 'the pending scheduled message is announced').toBeVisible({ timeout: PROMPT_MS });
      await expect(chat.bot('Here is the scheduled answer.'), 'the scheduled message appears').toBeVisible({ timeout: PROMPT_MS });
      await expect(chat.scheduled, 'and its announcement is gone').toBeHidden();
      const v = await bot.view(id);
      const at = (t: string) => Date.parse(v.transcript.find((e) => e.payload?.value === t)!.at);
      const gap = at('Here is the scheduled answer.') - at('Give me a second.');
      expect(gap, `the scheduled message came ${gap} ms after the first one; expected ${AWAIT_MS} ms (tolerance -100 ms / +2000 ms)`).toBeGreaterThanOrEqual(AWAIT_MS - 100);
      expect(gap).toBeLessThanOrEqual(AWAIT_MS + 2_000);

      const dropped = uniq('await dropped');
      const DROP_MS = 3_000;
      await bot.script(dropped, [text('I will come back to you.'), { type: 'await', duration: { unit: 'millis', value: DROP_MS } }, text('This must never be shown.')]);
      await page.getByRole('button', { name: 'New conversation' }).click();
      const id2 = await chat.start(dropped);
      await expect(chat.scheduled, 'the pending scheduled message is announced').toBeVisible({ timeout: PROMPT_MS });
      await shot(page, 'chat: scheduled message announced');
      const pending = ((await bot.view(id2)) as { pendingTimers?: Array<{ kind: string; due: string }> }).pendingTimers ?? [];
      expect(pending.map((t) => t.kind), 'the service holds the scheduled message').toContain('replies');
      const due = Date.parse(pending.find((t) => t.kind === 'replies')!.due);
      await chat.say('I speak first');
      await expect(chat.visitor('I speak first')).toBeVisible({ timeout: PROMPT_MS });
      await expect(chat.scheduled, 'the announcement disappears when the visitor speaks first').toBeHidden({ timeout: PROMPT_MS });
      // Wait, with a deadline, until the service clock is past the due time of the dropped message.
      await expect.poll(async () => (await bot.sim.clock({ quiet: true })).nowMs > due + 1_000,
        { message: 'the service clock passes the dropped message\'s due time', timeout: DROP_MS + PROMPT_MS }).toBe(true);
      await expect(chat.bot('This must never be shown.'), 'the dropped scheduled message never appears').toHaveCount(0);
      await expect(chat.scheduled, 'nothing is announced any more').toBeHidden();
      await shot(page, 'chat: scheduled message dropped');
    });
    noPageErrors(pageErrors);
  });

test('transfers and closing are system lines; a closed conversation takes no more messages', clauses('CONSOLE-SYS-01').needs('console', 'connector_url', 'sim'), async ({ chat, page, target, pageErrors }) => {
  await realTime(target.base_url, async () => {
    await chat.open();
    // The demo scenario: a transfer to a rule nobody serves, its 5 s timeout, the failure message, then close.
    await chat.start('example transfer');
    await expect(chat.system('TRANSFER_REQUESTED'), 'transfer requested line').toBeVisible({ timeout: PROMPT_MS });
    await expect(chat.system('TRANSFER_REQUESTED')).toContainText('Transfer requested');
    await expect(chat.system('TRANSFER_TIMEOUT'), 'transfer timeout line (after 5 s)').toBeVisible({ timeout: 5_000 + PROMPT_MS });
    await expect(chat.bot('Sorry, nobody could take your conversation.'), 'the scenario continues after the timeout').toBeVisible({ timeout: PROMPT_MS });
    await expect(chat.system('BOT_CHAT_CLOSE'), 'close line').toContainText('closed the conversation', { timeout: PROMPT_MS });
    await expect(page.getByTestId('conversation-state')).toHaveText('closed');
    await expect(page.getByLabel('Message', { exact: true }), 'a closed conversation takes no more messages').toBeDisabled();
    await shot(page, 'chat: transfer timeout and close');

    // A transfer to an asynchronous rule with an available operator is performed at once.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await chat.start('transfer support');
    await expect(chat.system('TRANSFERRED'), 'transferred line').toContainText('transferred to an operator', { timeout: PROMPT_MS });
    await expect(page.getByTestId('conversation-state')).toHaveText('started (with an operator)');
    await expect(chat.bot('Sorry, the transfer failed.'), 'the failure message after a performed transfer is not published').toHaveCount(0);
    await shot(page, 'chat: transferred');
  });
  noPageErrors(pageErrors);
});

test('phone-sized window and keyboard only: start, write, read; nothing scrolls sideways', clauses('CONSOLE-PAGE-02').needs('console', 'connector_url', 'sim'), async ({ chat, page, target, pageErrors }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await chat.open();
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  expect(await fits(), 'the chat page fits a 375 px wide window').toBe(true);
  for (const label of ['Website (its routing rule picks the bot)', 'Your first message']) await expect(page.getByLabel(label), `field "${label}" has a label`).toBeVisible();
  // Keyboard only: Tab to the first-message field, type, Enter submits.
  await page.keyboard.press('Tab');
  let guard = 0;
  while (!(await page.evaluate(() => document.activeElement?.id === 'first-message')) && guard++ < 10) await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id), 'the first-message field is reachable with Tab').toBe('first-message');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline, 'focus is visible').not.toBe('none');
  await page.keyboard.type('rich content');
  await page.keyboard.press('Enter');
  await expect(chat.payload('bundle/product-offer'), 'the conversation runs').toBeVisible({ timeout: PROMPT_MS });
  expect(await page.evaluate(() => document.activeElement?.id), 'focus moves to the message field').toBe('message');
  await page.keyboard.type('close please');
  await page.keyboard.press('Enter');
  await expect(chat.system('BOT_CHAT_CLOSE'), 'a message sent with Enter is answered').toBeVisible({ timeout: PROMPT_MS });
  expect(await fits(), 'rich content does not widen the page').toBe(true);
  await shot(page, 'chat on a phone-sized window');

  await page.goto(target.inspector_url!);
  await expect(page.locator('#conversations button').first(), 'the inspector lists conversations').toBeVisible({ timeout: PROMPT_MS });
  expect(await fits(), 'the inspector fits a 375 px wide window (wide tables scroll inside their panel)').toBe(true);
  const tag = await page.locator('#conversations button').first().evaluate((e) => e.tagName);
  expect(tag, 'conversations are selected with buttons').toBe('BUTTON');
  await shot(page, 'inspector on a phone-sized window');
  noPageErrors(pageErrors);
});
