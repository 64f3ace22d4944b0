// Chinese text is drawn with Chinese glyphs, not empty boxes ("tofu"): a
// session whose title is Chinese, in the sidebar and over its lane. Two
// different characters drawn with the font the page computed for the title
// must give different pixels (tofu boxes are all alike) and differ from a
// character no font has; and the page's font stack names a CJK face, so
// that a machine with one (set-up installs fonts-noto-cjk) uses it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { importFiles, openPage, piSession, shot, startServe } from './harness.mjs';

const TITLE = '重构会话导入模块';
let serve;
before(async () => {
  serve = await startServe();
  await importFiles(serve, [piSession({ n: 1, cwd: '/home/li/导入', prompt: `${TITLE}并添加中文搜索支持`, answer: '好的，我来重构导入模块。' })]);
});
after(async () => serve?.stop());

/** The pixels of each of chars drawn in the font of the element matching sel, as strings. */
function glyphPixels(page, sel, chars) {
  return page.evaluate(({ sel, chars }) => {
    const font = getComputedStyle(document.querySelector(sel)).fontFamily;
    const c = document.createElement('canvas');
    c.width = c.height = 48;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    const out = chars.map((ch) => {
      ctx.clearRect(0, 0, 48, 48);
      ctx.font = `32px ${font}`;
      ctx.fillStyle = '#000';
      ctx.textBaseline = 'top';
      ctx.fillText(ch, 4, 4);
      return Array.from(ctx.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3)).join(',');
    });
    return { font, pixels: out };
  }, { sel, chars });
}

for (const [w, h] of [[1440, 900], [1024, 768]]) {
  test(`a Chinese session title is drawn in Chinese glyphs (${w}x${h})`, async () => {
    const { browser, page, problems } = await openPage(serve.url, { width: w, height: h });
    try {
      const title = page.locator('[data-testid=session-title]', { hasText: TITLE });
      await title.waitFor();
      await page.waitForSelector('[data-testid=lane-label]');
      const { font, pixels } = await glyphPixels(page, '[data-testid=session-title]', ['重', '构', '\u{10FFFD}']);
      assert.match(font, /CJK|Source Han|PingFang|YaHei|WenQuanYi/, `the title's font stack names no CJK face: ${font}`);
      const [a, b, none] = pixels;
      assert.ok(/[1-9]/.test(a), `重 drew nothing in ${font}`);
      assert.notEqual(a, b, `重 and 构 are drawn alike in ${font}: empty boxes (no CJK font)`);
      assert.notEqual(a, none, `重 is drawn as a character no font has in ${font}: an empty box`);
      await shot(page, `cjk-title-${w}x${h}`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
}
