// @ts-check
// Swagger UI as a reader meets it, in the system's headless Chromium: on the server at BASE_URL
// (not the default port), `POST /v1/melds/validate` is tried out with a valid meld and must
// answer 200 from that very server, the URL the document's relative server resolves to.
//
// Usage: NODE_PATH=<dir holding playwright-core> node swagger.mjs BASE_URL SCREENSHOT.png
import { createRequire } from 'node:module';

// playwright-core lives with the other pinned tools, not beside this file: require honours
// NODE_PATH, import does not.
const require = createRequire(import.meta.url);
/** @type {import('playwright-core')} */
const { chromium } = require('playwright-core');

const [base, screenshot] = process.argv.slice(2);
if (!base || !screenshot) {
    console.error('usage: node swagger.mjs BASE_URL SCREENSHOT.png');
    process.exit(2);
}
// The README's meld: 8H JK 5H 6H, a run with the joker as 7H.
const meld = { variant: 'may_i', cards: ['8H', 'JK', '5H', '6H'] };

const browser = await chromium.launch({
    // Debian's package: never a downloaded browser.
    executablePath: '/usr/bin/chromium',
    // No network here: without the background-networking flags Chromium keeps dialling out.
    args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
    ],
});
let failure = '';
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
try {
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/docs/`);
    const operation = page.locator('#operations-validation-validate_meld');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('textarea.body-param__text').fill(JSON.stringify(meld, null, 2));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const live = operation.locator('.live-responses-table');
    const status = (await live.locator('.response .response-col_status').first().innerText()).trim();
    const url = (await operation.locator('.request-url pre').innerText()).trim();
    const body = await live.locator('.response-col_description pre').first().innerText();
    // The request URL and the answer, on one screen.
    await operation.locator('.request-url').evaluate((e) => e.scrollIntoView());
    await page.screenshot({ path: screenshot });
    const expected = `${base}/v1/melds/validate`;
    if (url !== expected) {
        failure = `the request went to ${url}, not ${expected}`;
    } else if (status !== '200') {
        failure = `the server answered ${status}: ${body}`;
    } else {
        console.log(`${url}: ${status}`);
    }
} catch (error) {
    await page.screenshot({ path: screenshot }).catch(() => {});
    failure = String(error);
} finally {
    await browser.close();
}
if (failure) {
    console.error(`Swagger UI: ${failure} (screenshot: ${screenshot})`);
    process.exit(1);
}
