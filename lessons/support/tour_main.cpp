// main() of the lesson programs and the tour: tour.cpp does the work.
#include "lessons/support/tour.h"

int main(int argc, char** argv) { return tinyamp::lesson::tour_main(argc, argv); }
