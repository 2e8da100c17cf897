#pragma once
// tinyamp 0.1's path for tinyamp/nn/normalization_layers.h: this forwarding header is installed for one release (0.2,
// removed in 0.3; the CHANGELOG says so). Include "tinyamp/nn/normalization_layers.h" instead: since issue 40
// no two files of tinyamp/ share a name, and nn/ names its files for their layers.
#include "tinyamp/nn/normalization_layers.h"
