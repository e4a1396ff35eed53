/** The one rule of reservations, shared by push, reconcile and the dashboard. */

/** The figure the shop may show: the ERP's figure less unbooked units, never below 0. */
export function reservedFigure(erp: number, unbooked: number): number {
  return Math.max(0, erp - unbooked);
}
