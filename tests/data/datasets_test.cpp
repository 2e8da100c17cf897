// Data sets: the real files' shapes, labels and value ranges; bad files fail with an io error
// naming the file and the line; train_test_split's sizes, disjointness and seeding.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

std::vector<std::int64_t> class_counts(const Tensor& labels, std::int64_t classes)
{
    std::vector<std::int64_t> counts(std::size_t(classes), 0);
    for (const double label : labels.to_vector())
        ++counts.at(std::size_t(label));
    return counts;
}

// A file in the temp folder that is removed when the test ends.
class TempFile {
public:
    TempFile(const std::string& name, const std::string& contents)
        : path_((std::filesystem::temp_directory_path() / ("tinyamp_datasets_test_" + name)).string())
    {
        std::ofstream(path_, std::ios::binary) << contents;
    }
    ~TempFile() { std::filesystem::remove(path_); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string digits_row(int label, int pixel = 3)
{
    std::string row;
    for (int i = 0; i < 64; ++i)
        row += std::to_string(pixel) + ",";
    return row + std::to_string(label) + "\n";
}

// A data set whose feature is the sample's own index, so splits and batches can be traced back.
data::Dataset indexed_dataset(std::int64_t n)
{
    std::vector<double> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        values[std::size_t(i)] = double(i);
    return data::Dataset{tensor(values, Shape{n, 1}, f32), tensor(values, Shape{n}, i64)};
}

}  // namespace

TEST_CASE("load_digits: 1797 x 64 f32 pixels 0..16 and the pinned class counts")
{
    const data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    CHECK(digits.features.shape() == Shape{1797, 64});
    CHECK(digits.features.dtype() == f32);
    CHECK(digits.labels.shape() == Shape{1797});
    CHECK(digits.labels.dtype() == i64);
    CHECK(digits.size() == 1797);

    const std::vector<double> pixels = digits.features.to_vector();
    CHECK(*std::min_element(pixels.begin(), pixels.end()) == 0.0);
    CHECK(*std::max_element(pixels.begin(), pixels.end()) == 16.0);
    CHECK(std::all_of(pixels.begin(), pixels.end(), [](double p) { return p == double(std::int64_t(p)); }));

    CHECK(class_counts(digits.labels, 10) == std::vector<std::int64_t>{178, 182, 177, 183, 181, 182, 181, 179, 174, 180});
    // The first row of the file, a 0.
    CHECK(digits.features.at({0, 2}) == 5.0);
    CHECK(digits.features.at({0, 3}) == 13.0);
    CHECK(digits.labels.at({0}) == 0.0);
}

TEST_CASE("load_breast_cancer: 569 x 30 f32 features and 212 malignant, 357 benign")
{
    const data::Dataset cancer = data::load_breast_cancer(data::data_path("breast_cancer.csv"));
    CHECK(cancer.features.shape() == Shape{569, 30});
    CHECK(cancer.features.dtype() == f32);
    CHECK(cancer.labels.shape() == Shape{569});
    CHECK(cancer.labels.dtype() == i64);
    CHECK(class_counts(cancer.labels, 2) == std::vector<std::int64_t>{212, 357});

    const std::vector<double> values = cancer.features.to_vector();
    CHECK(*std::min_element(values.begin(), values.end()) == 0.0);
    CHECK(*std::max_element(values.begin(), values.end()) < 5000.0);
    CHECK(cancer.features.at({0, 0}) == double(17.99f));
    CHECK(cancer.features.at({0, 3}) == 1001.0);
}

TEST_CASE("data_path: TINYAMP_DATA_DIR overrides the source tree's data folder")
{
    CHECK(std::filesystem::exists(data::data_path("digits.csv.gz")));
    CHECK(data::data_path("digits.csv.gz").ends_with("/data/digits.csv.gz"));

    const char* before = std::getenv("TINYAMP_DATA_DIR");
    const std::string saved = before != nullptr ? before : "";
    ::setenv("TINYAMP_DATA_DIR", "/elsewhere/data", 1);
    CHECK(data::data_path("digits.csv.gz") == "/elsewhere/data/digits.csv.gz");
    if (before != nullptr)
        ::setenv("TINYAMP_DATA_DIR", saved.c_str(), 1);
    else
        ::unsetenv("TINYAMP_DATA_DIR");
}

TEST_CASE("bad data files fail with an io error naming the file, the line and the problem")
{
    SUBCASE("missing file")
    {
        const std::string message = error_message([] { data::load_digits("/no/such/folder/digits.csv.gz"); }, ErrorKind::io);
        CHECK(message.find("/no/such/folder/digits.csv.gz") != std::string::npos);
        CHECK(message.find("cannot open") != std::string::npos);
    }
    SUBCASE("wrong column count")
    {
        std::string short_row = digits_row(1);
        short_row.erase(0, 2);  // drops the first pixel: 64 fields
        const TempFile file("columns.csv", digits_row(0) + digits_row(1) + short_row);
        const std::string message = error_message([&] { data::load_digits(file.path()); }, ErrorKind::io);
        CHECK(message.find(file.path()) != std::string::npos);
        CHECK(message.find("line 3") != std::string::npos);
        CHECK(message.find("expected 65") != std::string::npos);
        CHECK(message.find("found 64") != std::string::npos);
    }
    SUBCASE("non-numeric field")
    {
        std::string bad_row = digits_row(2);
        bad_row.replace(0, 1, "x7");
        const TempFile file("text.csv", digits_row(0) + bad_row);
        const std::string message = error_message([&] { data::load_digits(file.path()); }, ErrorKind::io);
        CHECK(message.find("line 2 column 1") != std::string::npos);
        CHECK(message.find("'x7' is not a finite number") != std::string::npos);
    }
    SUBCASE("label out of range")
    {
        const TempFile file("label.csv", digits_row(9) + digits_row(10));
        const std::string message = error_message([&] { data::load_digits(file.path()); }, ErrorKind::io);
        CHECK(message.find("line 2") != std::string::npos);
        CHECK(message.find("label 10 is out of range") != std::string::npos);
    }
    SUBCASE("too few rows")
    {
        const TempFile file("rows.csv", digits_row(0) + digits_row(1));
        const std::string message = error_message([&] { data::load_digits(file.path()); }, ErrorKind::io);
        CHECK(message.find("has 2 rows of data, expected 1797") != std::string::npos);
    }
    SUBCASE("truncated gzip file")
    {
        std::ifstream in(data::data_path("digits.csv.gz"), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const TempFile file("truncated.csv.gz", bytes.substr(0, bytes.size() / 2));
        const std::string message = error_message([&] { data::load_digits(file.path()); }, ErrorKind::io);
        CHECK(message.find(file.path()) != std::string::npos);
    }
    SUBCASE("breast cancer: wrong header, and a label that is not 0 or 1")
    {
        const TempFile header("header.csv", "570,30,malignant,benign\n");
        CHECK(error_message([&] { data::load_breast_cancer(header.path()); }, ErrorKind::io).find("line 1") != std::string::npos);

        std::string row;
        for (int i = 0; i < 30; ++i)
            row += "1.5,";
        const TempFile label("cancer_label.csv", "569,30,malignant,benign\n" + row + "1\n" + row + "0.5\n");
        const std::string message = error_message([&] { data::load_breast_cancer(label.path()); }, ErrorKind::io);
        CHECK(message.find("line 3") != std::string::npos);
        CHECK(message.find("label 0.5 is out of range") != std::string::npos);
    }
}

TEST_CASE("train_test_split: sizes, disjoint parts that cover every sample, and seeding")
{
    const data::Dataset samples = indexed_dataset(1797);
    const auto [train, test] = data::train_test_split(samples, 0.2, 0);
    CHECK(train.size() == 1437);
    CHECK(test.size() == 360);  // ceil(1797 * 0.2), as scikit-learn rounds
    CHECK(train.features.shape() == Shape{1437, 1});

    std::set<double> seen;
    for (const data::Dataset* part : {&train, &test}) {
        const std::vector<double> features = part->features.to_vector();
        CHECK(features == part->labels.to_vector());  // each sample keeps its own label
        seen.insert(features.begin(), features.end());
    }
    CHECK(seen.size() == 1797);  // no sample in both parts, none left out

    const auto [train_again, test_again] = data::train_test_split(samples, 0.2, 0);
    CHECK(test_again.labels.to_vector() == test.labels.to_vector());
    const auto [train_other, test_other] = data::train_test_split(samples, 0.2, 1);
    CHECK(test_other.labels.to_vector() != test.labels.to_vector());

    const data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    const auto [digits_train, digits_test] = data::train_test_split(digits, 0.2, 0);
    CHECK(digits_train.features.shape() == Shape{1437, 64});
    CHECK(digits_test.labels.shape() == Shape{360});

    CHECK(error_message([&] { data::train_test_split(samples, 1.0, 0); }, ErrorKind::value).find("test_fraction") != std::string::npos);
}
