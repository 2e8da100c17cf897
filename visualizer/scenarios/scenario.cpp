#include "visualizer/scenarios/scenario.h"
