/** Text as HTML shows it: every character that could open markup or an attribute, escaped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A small page of the service's own (its body given as markup the caller built from escaped
 * text): no script, no asset of another origin, styled inline.
 */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="data:," />
    <style>
      body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }
      h1 { font-size: 1.5rem; }
      table { border-collapse: collapse; width: 100%; }
      td, th { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
      pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.8rem; }
      button { font-size: 1rem; padding: 0.5rem 1.2rem; }
      iframe { width: 100%; min-height: 20rem; border: 1px solid #ddd; }
    </style>
  </head>
  <body>
    <h1>${escapeHtml(title)}</h1>
${body}
  </body>
</html>
`;
}
