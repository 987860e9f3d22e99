/* From any local APIC mode to xAPIC mode, by allowed steps only (apic_mode.h). */
#include "apic_mode.h"

int apic_to_xapic(u64 msr, u64 writes[2])
{
	u64 off = msr & ~(APIC_BASE_EN | APIC_BASE_EXTD);

	if ((msr & APIC_BASE_EN) && !(msr & APIC_BASE_EXTD))
		return 0;			/* xAPIC already */
	if (!(msr & APIC_BASE_EXTD)) {
		writes[0] = off | APIC_BASE_EN;	/* disabled -> xAPIC */
		return 1;
	}
	writes[0] = off;			/* x2APIC -> disabled */
	writes[1] = off | APIC_BASE_EN;		/* -> xAPIC */
	return 2;
}
