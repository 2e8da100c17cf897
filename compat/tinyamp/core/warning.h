#pragma once
// tinyamp 0.1's path for tinyamp/support/warning.h: this forwarding header is installed for one release (0.2,
// removed in 0.3; the CHANGELOG says so). Include "tinyamp/support/warning.h" instead: since issue 40
// each folder of tinyamp/ is one floor (docs/architecture.md).
#include "tinyamp/support/warning.h"
