#pragma once
// tinyamp 0.1's path for tinyamp/support/grad_mode.h: this forwarding header is installed for one release (0.2,
// removed in 0.3; the CHANGELOG says so). Include "tinyamp/support/grad_mode.h" instead: since issue 40
// each folder of tinyamp/ is one floor (docs/architecture.md).
#include "tinyamp/support/grad_mode.h"
