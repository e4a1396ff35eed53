import { describe, expect, it } from 'vitest';
import { escapeHtml, html, jsonForScript, unsafeRaw } from '../../src/dashboard/html.js';

describe('html template', () => {
  it('escapes every interpolated value', () => {
    const name = '<img src=x onerror=alert(1)>';
    expect(html`<td>${name}</td>`.value).toBe('<td>&lt;img src=x onerror=alert(1)&gt;</td>');
  });

  it('escapes quotes so a value cannot leave its attribute', () => {
    expect(html`<a title="${'" onmouseover="x'}">`.value).toBe('<a title="&quot; onmouseover=&quot;x">');
    expect(escapeHtml(`'\``)).toBe('&#39;&#96;');
  });

  it('keeps nested templates and explicitly trusted markup as markup', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${unsafeRaw('<br>')}</p>`.value).toBe('<p><b>&lt;i&gt;</b><br></p>');
  });

  it('joins arrays and renders nothing for null, undefined and false', () => {
    expect(html`<ul>${['<a>', html`<li>b</li>`]}</ul>`.value).toBe('<ul>&lt;a&gt;<li>b</li></ul>');
    expect(html`${null}${undefined}${false}|${0}`.value).toBe('|0');
  });

  it('serialises JSON that cannot close a script element', () => {
    expect(jsonForScript({ a: '</script><script>alert(1)</script>' }).value).not.toContain('</script>');
  });
});
