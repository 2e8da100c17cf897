// The labs' test program: every lessons/NN_topic/lab_test.cpp, one doctest suite per lab.
// Run one lab with:  labs -ts=lab02
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
