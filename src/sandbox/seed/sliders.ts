/** Demo slides: a category banner, a news teaser video and an inactive content slide. */
import type { SandboxContext } from '../handler.js';

/** Load the demo slides. */
export function seedSliders(ctx: SandboxContext): void {
  const now = ctx.timestamp();
  const lang = (title: string, image: string) => ({ title, description: `<p>${title}</p>`, direction: 'left', width: 1200, image, image_mobile: image.replace('.jpg', '-m.jpg'), video: '', video_mobile: '' });
  const slides = [
    { slider_id: 1, slider_status: 1, sort_order: 1, entity_type: 'category', entity_id: 1, target: '_self', type: 0, languages: { de: lang('Kaffee entdecken', 'slide-coffee.jpg'), en: lang('Discover coffee', 'slide-coffee.jpg') } },
    { slider_id: 2, slider_status: 1, sort_order: 2, entity_type: 'news', entity_id: 1, target: '_self', type: 1, languages: { de: { ...lang('Sommerfest', 'slide-party.jpg'), video: 'party.mp4' }, en: { ...lang('Summer party', 'slide-party.jpg'), video: 'party.mp4' } } },
    { slider_id: 3, slider_status: 0, sort_order: 3, entity_type: 'content', entity_id: 4, target: '_blank', type: 0, languages: { de: lang('Versandinfo', 'slide-shipping.jpg') } },
  ];
  for (const s of slides) ctx.store.put('sliders', s.slider_id, { ...s, date_from: null, date_till: null, shop_ids: '', date_added: now });
}
