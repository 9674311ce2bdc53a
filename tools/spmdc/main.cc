// spmdc command-line tool (DESIGN.md, "The command-line contract").
#include <cstdio>

int main(int argc, char** argv) {
  std::fprintf(stderr, "usage: spmdc <check|print|run|propagate|partition|compile|verify> ...\n");
  return 2;
}
