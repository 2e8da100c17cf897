#include "visualizer/model/inspector.h"
