#include "visualizer/model/layout.h"
