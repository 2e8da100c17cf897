#pragma once
// SmallVector<T, N>: a vector that keeps up to N elements inside itself and only goes to the heap
// beyond that. Shapes and strides are short (a 4-D tensor has 4 of each) and every view, tensor
// and autograd node holds some, so with std::vector each of them cost a malloc and a free. With
// N = 6 the common case costs none.
//
// It has the parts of std::vector's interface that tinyamp uses, with the same meaning, and is
// limited to trivially copyable elements (plain numbers), which keeps it short: elements are
// copied with std::copy and never need destructors.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ostream>
#include <type_traits>
#include <vector>

#include "tinyamp/core/error.h"

namespace tinyamp {

template <class T, std::size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds plain values only (no destructors to run)");
    static_assert(N > 0, "SmallVector needs room for at least one element inside");

public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using const_reference = const T&;
    using pointer = T*;
    using const_pointer = const T*;
    using iterator = T*;
    using const_iterator = const T*;
    using reverse_iterator = std::reverse_iterator<iterator>;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;

    SmallVector() = default;
    explicit SmallVector(size_type count, const T& value = T()) { assign(count, value); }
    SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
    template <std::input_iterator It>
    SmallVector(It first, It last)
    {
        assign(first, last);
    }
    /// From a std::vector, so code written when Shape was a std::vector still compiles.
    SmallVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }  // NOLINT: implicit on purpose

    SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
    SmallVector(SmallVector&& other) noexcept { take(other); }
    SmallVector& operator=(const SmallVector& other)
    {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    SmallVector& operator=(SmallVector&& other) noexcept
    {
        if (this != &other) {
            release_heap();
            take(other);
        }
        return *this;
    }
    SmallVector& operator=(std::initializer_list<T> values)
    {
        assign(values.begin(), values.end());
        return *this;
    }
    ~SmallVector() { release_heap(); }

    // ---- size and element access ----
    size_type size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_type capacity() const { return capacity_; }
    T* data() { return data_; }
    const T* data() const { return data_; }
    T& operator[](size_type i) { return data_[i]; }
    const T& operator[](size_type i) const { return data_[i]; }
    T& at(size_type i)
    {
        check_index(i);
        return data_[i];
    }
    const T& at(size_type i) const
    {
        check_index(i);
        return data_[i];
    }
    T& front() { return data_[0]; }
    const T& front() const { return data_[0]; }
    T& back() { return data_[size_ - 1]; }
    const T& back() const { return data_[size_ - 1]; }

    iterator begin() { return data_; }
    iterator end() { return data_ + size_; }
    const_iterator begin() const { return data_; }
    const_iterator end() const { return data_ + size_; }
    const_iterator cbegin() const { return data_; }
    const_iterator cend() const { return data_ + size_; }
    reverse_iterator rbegin() { return reverse_iterator(end()); }
    reverse_iterator rend() { return reverse_iterator(begin()); }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

    // ---- changing the contents ----
    void reserve(size_type wanted)
    {
        if (wanted <= capacity_) return;
        auto bigger = std::make_unique<T[]>(wanted);
        std::copy(begin(), end(), bigger.get());
        release_heap();
        data_ = bigger.release();
        capacity_ = wanted;
    }
    void clear() { size_ = 0; }
    void assign(size_type count, const T& value)
    {
        size_ = 0;
        reserve(count);
        std::fill_n(data_, count, value);
        size_ = count;
    }
    template <std::input_iterator It>
    void assign(It first, It last)
    {
        size_ = 0;
        if constexpr (std::forward_iterator<It>) reserve(size_type(std::distance(first, last)));
        for (; first != last; ++first) push_back(*first);
    }
    void push_back(const T& value)
    {
        if (size_ == capacity_) grow(size_ + 1);
        data_[size_++] = value;
    }
    template <class... Args>
    T& emplace_back(Args&&... args)
    {
        push_back(T(std::forward<Args>(args)...));
        return back();
    }
    void pop_back() { --size_; }
    void resize(size_type count, const T& value = T())
    {
        if (count > size_) {
            reserve(count);
            std::fill(data_ + size_, data_ + count, value);
        }
        size_ = count;
    }
    iterator insert(const_iterator pos, const T& value) { return insert(pos, size_type(1), value); }
    // `value` by copy: it may be an element of this vector, which making room moves.
    iterator insert(const_iterator pos, size_type count, T value)
    {
        const size_type at = make_room(pos, count);
        std::fill_n(data_ + at, count, value);
        return data_ + at;
    }
    template <std::forward_iterator It>
    iterator insert(const_iterator pos, It first, It last)
    {
        const size_type count = size_type(std::distance(first, last));
        // The source may lie inside this vector: copy it out before making room moves it.
        const SmallVector copy(first, last);
        const size_type at = make_room(pos, count);
        std::copy(copy.begin(), copy.end(), data_ + at);
        return data_ + at;
    }
    iterator insert(const_iterator pos, std::initializer_list<T> values) { return insert(pos, values.begin(), values.end()); }
    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
    iterator erase(const_iterator first, const_iterator last)
    {
        T* const from = data_ + (first - data_);
        std::copy(last, cend(), from);
        size_ -= size_type(last - first);
        return from;
    }

    // Hidden friends: found through the SmallVector argument, and a std::vector on either side
    // converts, so `shape == std::vector<std::int64_t>{2, 3}` keeps working.
    friend bool operator==(const SmallVector& a, const SmallVector& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
    friend bool operator<(const SmallVector& a, const SmallVector& b)
    {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }
    /// "[2, 3]", as shape_str writes a shape (doctest shows this when a CHECK fails).
    friend std::ostream& operator<<(std::ostream& out, const SmallVector& v)
    {
        out << '[';
        for (size_type i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
        return out << ']';
    }

private:
    bool on_heap() const { return data_ != inline_; }
    void release_heap()
    {
        if (on_heap()) delete[] data_;
        data_ = inline_;
        capacity_ = N;
    }
    // Steals a heap buffer; copies inline elements (a moved-from vector is left empty).
    void take(SmallVector& other)
    {
        if (other.on_heap()) {
            data_ = other.data_;
            capacity_ = other.capacity_;
            other.data_ = other.inline_;
            other.capacity_ = N;
        } else {
            std::copy(other.begin(), other.end(), inline_);
        }
        size_ = other.size_;
        other.size_ = 0;
    }
    void grow(size_type wanted) { reserve(std::max(wanted, 2 * capacity_)); }
    // Opens a gap of `count` elements at `pos`; returns the gap's index.
    size_type make_room(const_iterator pos, size_type count)
    {
        const size_type at = size_type(pos - data_);
        if (size_ + count > capacity_) grow(size_ + count);
        std::copy_backward(data_ + at, data_ + size_, data_ + size_ + count);
        size_ += count;
        return at;
    }
    void check_index(size_type i) const
    {
        TINYAMP_CHECK(i < size_, index, "SmallVector index ", i, " is out of range for size ", size_);
    }

    T inline_[N] = {};
    T* data_ = inline_;
    size_type size_ = 0;
    size_type capacity_ = N;
};

}  // namespace tinyamp
