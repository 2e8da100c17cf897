#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

using Small = SmallVector<std::int64_t, 3>;  // room for 3 inside: easy to push past it

std::vector<std::int64_t> as_vector(const Small& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST_CASE("SmallVector builds like std::vector")
{
    CHECK(Small{}.empty());
    CHECK(as_vector(Small{1, 2, 3, 4}) == std::vector<std::int64_t>{1, 2, 3, 4});
    CHECK(as_vector(Small(2, 7)) == std::vector<std::int64_t>{7, 7});
    CHECK(as_vector(Small(3)) == std::vector<std::int64_t>{0, 0, 0});
    const std::vector<std::int64_t> source{5, 6, 7, 8, 9};
    CHECK(as_vector(Small(source.begin() + 1, source.end())) == std::vector<std::int64_t>{6, 7, 8, 9});
    const Small from_vector = source;  // implicit: code written for std::vector shapes still compiles
    CHECK(from_vector.size() == 5);
    CHECK(from_vector == source);
}

TEST_CASE("SmallVector stays inline up to N elements and moves to the heap beyond")
{
    Small v{1, 2, 3};
    CHECK(v.capacity() == 3);
    const std::int64_t* inline_data = v.data();
    v.push_back(4);
    CHECK(v.data() != inline_data);
    CHECK(v.capacity() >= 4);
    CHECK(as_vector(v) == std::vector<std::int64_t>{1, 2, 3, 4});
    for (std::int64_t i = 5; i <= 40; ++i) v.push_back(i);
    CHECK(v.size() == 40);
    CHECK(v.back() == 40);
    CHECK(v[20] == 21);
}

TEST_CASE("SmallVector copies and moves, inline and on the heap")
{
    for (const Small& original : {Small{1, 2}, Small{1, 2, 3, 4, 5}}) {
        CAPTURE(original);
        Small copy = original;
        CHECK(copy == original);
        copy[0] = 99;
        CHECK(original[0] == 1);  // a deep copy

        Small moved = std::move(copy);
        CHECK(moved.size() == original.size());
        CHECK(moved[0] == 99);
        CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from SmallVector is left empty

        Small assigned{7};
        assigned = moved;
        CHECK(assigned == moved);
        assigned = Small{8, 9};
        CHECK(as_vector(assigned) == std::vector<std::int64_t>{8, 9});
        Small& self = assigned;
        assigned = self;
        CHECK(as_vector(assigned) == std::vector<std::int64_t>{8, 9});
    }
}

TEST_CASE("SmallVector insert, erase and resize keep std::vector's meaning")
{
    Small v{1, 2, 3};
    v.insert(v.begin(), 0);
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 2, 3});
    v.insert(v.begin() + 2, 2, 5);
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 5, 5, 2, 3});
    v.insert(v.end(), v.begin(), v.begin() + 2);  // a range out of the vector itself
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 5, 5, 2, 3, 0, 1});
    v.insert(v.begin() + 1, v.back());  // a value out of the vector itself
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 1, 5, 5, 2, 3, 0, 1});

    CHECK(*v.erase(v.begin() + 1) == 1);
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 5, 5, 2, 3, 0, 1});
    const auto after = v.erase(v.begin() + 2, v.end());
    CHECK(after == v.end());
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1});

    v.resize(4, 8);
    CHECK(as_vector(v) == std::vector<std::int64_t>{0, 1, 8, 8});
    v.resize(1);
    CHECK(as_vector(v) == std::vector<std::int64_t>{0});
    v.pop_back();
    CHECK(v.empty());
}

TEST_CASE("SmallVector compares, prints and checks at()")
{
    CHECK(Small{1, 2} == Small{1, 2});
    CHECK(Small{1, 2} != Small{1, 2, 3});
    CHECK(Small{1, 2} < Small{1, 3});
    CHECK(Small{1, 2} == std::vector<std::int64_t>{1, 2});
    std::ostringstream out;
    out << Small{2, 3, 4, 5} << ' ' << Small{};
    CHECK(out.str() == "[2, 3, 4, 5] []");
    const Small two{4, 5};
    CHECK(two.at(1) == 5);
    CHECK_THROWS_AS(two.at(2), Error);
}

TEST_CASE("Shape keeps brace initialisation and std::vector's element access")
{
    Shape s = {2, 3};
    s.push_back(4);
    CHECK(s.size() == 3);
    CHECK(s.back() == 4);
    CHECK(numel(s) == 24);
    CHECK(shape_str(s) == "[2, 3, 4]");
    CHECK(zeros({2, 3}).shape() == Shape{2, 3});
}
