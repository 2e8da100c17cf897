#pragma once
/// \file
/// `SmallVector<T, N>`: a vector that keeps up to N elements inside itself and only goes to the
/// heap beyond that.
///
/// Shapes and strides are short (a 4-D tensor has 4 of each) and every view, tensor
/// and autograd node holds some, so with std::vector each of them cost a malloc and a free. With
/// N = 6 the common case costs none.
///
/// It has the parts of std::vector's interface that tinyamp uses, with the same meaning, and is
/// limited to trivially copyable elements (plain numbers), which keeps it short: elements are
/// copied with std::copy and never need destructors.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ostream>
#include <type_traits>
#include <vector>

#include "tinyamp/support/error.h"

namespace tinyamp {

/// A vector of trivially copyable \p T that stores up to \p N of them inline (no heap
/// allocation), with the part of `std::vector`'s interface tinyamp uses. Shape and
/// Strides are `SmallVector<std::int64_t, 6>`; a std::vector converts to it implicitly.
template <class T, std::size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds plain values only (no destructors to run)");
    static_assert(N > 0, "SmallVector needs room for at least one element inside");

public:
    using value_type = T;  ///< the element type
    using size_type = std::size_t;  ///< sizes and indices
    using difference_type = std::ptrdiff_t;  ///< iterator distances
    using reference = T&;  ///< `T&`
    using const_reference = const T&;  ///< `const T&`
    using pointer = T*;  ///< `T*`
    using const_pointer = const T*;  ///< `const T*`
    using iterator = T*;  ///< a plain pointer
    using const_iterator = const T*;  ///< a plain pointer to const
    using reverse_iterator = std::reverse_iterator<iterator>;  ///< iterates from the back
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;  ///< iterates from the back, read-only

    SmallVector() = default;  ///< empty, with room for N elements inside
    explicit SmallVector(size_type count, const T& value = T()) { assign(count, value); }  ///< \p count copies of \p value
    SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }  ///< the listed values: `Shape{2, 3}`
    /// The elements of [first, last).
    template <std::input_iterator It>
    SmallVector(It first, It last)
    {
        assign(first, last);
    }
    /// From a std::vector, so code written when Shape was a std::vector still compiles.
    SmallVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }  // NOLINT: implicit on purpose

    SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }  ///< copies the elements
    SmallVector(SmallVector&& other) noexcept { take(other); }  ///< takes other's heap buffer, or copies its inline elements; other is left empty
    /// Copies other's elements.
    SmallVector& operator=(const SmallVector& other)
    {
        if (this != &other) assign(other.begin(), other.end());
        return *this;
    }
    /// Frees this vector's heap buffer, then takes other's as the move constructor does.
    SmallVector& operator=(SmallVector&& other) noexcept
    {
        if (this != &other) {
            release_heap();
            take(other);
        }
        return *this;
    }
    /// Replaces the elements with the listed values.
    SmallVector& operator=(std::initializer_list<T> values)
    {
        assign(values.begin(), values.end());
        return *this;
    }
    ~SmallVector() { release_heap(); }  ///< frees the heap buffer, if any

    // ---- size and element access ----
    size_type size() const { return size_; }  ///< number of elements
    bool empty() const { return size_ == 0; }  ///< size() == 0
    size_type capacity() const { return capacity_; }  ///< elements that fit without reallocating (N while inline)
    T* data() { return data_; }  ///< the first element
    const T* data() const { return data_; }  ///< the first element
    T& operator[](size_type i) { return data_[i]; }  ///< element \p i, unchecked
    const T& operator[](size_type i) const { return data_[i]; }  ///< element \p i, unchecked
    /// Element \p i, checked: Error(index) when \p i >= size().
    T& at(size_type i)
    {
        check_index(i);
        return data_[i];
    }
    /// Element \p i, checked: Error(index) when \p i >= size().
    const T& at(size_type i) const
    {
        check_index(i);
        return data_[i];
    }
    T& front() { return data_[0]; }  ///< the first element (must not be empty)
    const T& front() const { return data_[0]; }  ///< the first element (must not be empty)
    T& back() { return data_[size_ - 1]; }  ///< the last element (must not be empty)
    const T& back() const { return data_[size_ - 1]; }  ///< the last element (must not be empty)

    iterator begin() { return data_; }  ///< iterator to the first element
    iterator end() { return data_ + size_; }  ///< iterator past the last element
    const_iterator begin() const { return data_; }  ///< iterator to the first element
    const_iterator end() const { return data_ + size_; }  ///< iterator past the last element
    const_iterator cbegin() const { return data_; }  ///< iterator to the first element
    const_iterator cend() const { return data_ + size_; }  ///< iterator past the last element
    reverse_iterator rbegin() { return reverse_iterator(end()); }  ///< reverse iterator to the last element
    reverse_iterator rend() { return reverse_iterator(begin()); }  ///< reverse iterator before the first element
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }  ///< reverse iterator to the last element
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }  ///< reverse iterator before the first element

    // ---- changing the contents ----
    /// Makes room for \p wanted elements (moves them to the heap if needed); never shrinks.
    void reserve(size_type wanted)
    {
        if (wanted <= capacity_) return;
        auto bigger = std::make_unique<T[]>(wanted);
        std::copy(begin(), end(), bigger.get());
        release_heap();
        data_ = bigger.release();
        capacity_ = wanted;
    }
    void clear() { size_ = 0; }  ///< removes every element (keeps the capacity)
    /// Replaces the elements with \p count copies of \p value.
    void assign(size_type count, const T& value)
    {
        size_ = 0;
        reserve(count);
        std::fill_n(data_, count, value);
        size_ = count;
    }
    /// Replaces the elements with those of [first, last).
    template <std::input_iterator It>
    void assign(It first, It last)
    {
        size_ = 0;
        if constexpr (std::forward_iterator<It>) reserve(size_type(std::distance(first, last)));
        for (; first != last; ++first) push_back(*first);
    }
    /// Appends \p value (the capacity doubles when full).
    void push_back(const T& value)
    {
        if (size_ == capacity_) grow(size_ + 1);
        data_[size_++] = value;
    }
    /// Appends `T(args...)` and returns it.
    template <class... Args>
    T& emplace_back(Args&&... args)
    {
        push_back(T(std::forward<Args>(args)...));
        return back();
    }
    void pop_back() { --size_; }  ///< removes the last element (must not be empty)
    /// Makes the size \p count: new elements are copies of \p value, extra ones are dropped.
    void resize(size_type count, const T& value = T())
    {
        if (count > size_) {
            reserve(count);
            std::fill(data_ + size_, data_ + count, value);
        }
        size_ = count;
    }
    iterator insert(const_iterator pos, const T& value) { return insert(pos, size_type(1), value); }  ///< inserts \p value before \p pos; returns an iterator to it
    /// Inserts \p count copies of \p value before \p pos; returns an iterator to the first.
    /// (`value` by copy: it may be an element of this vector, which making room moves.)
    iterator insert(const_iterator pos, size_type count, T value)
    {
        const size_type at = make_room(pos, count);
        std::fill_n(data_ + at, count, value);
        return data_ + at;
    }
    /// Inserts the elements of [first, last) before \p pos (they may come from this vector);
    /// returns an iterator to the first one inserted.
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
    iterator insert(const_iterator pos, std::initializer_list<T> values) { return insert(pos, values.begin(), values.end()); }  ///< inserts the listed values before \p pos
    iterator erase(const_iterator pos) { return erase(pos, pos + 1); }  ///< removes the element at \p pos; returns the iterator after it
    /// Removes the elements of [first, last); returns the iterator after them.
    iterator erase(const_iterator first, const_iterator last)
    {
        T* const from = data_ + (first - data_);
        std::copy(last, cend(), from);
        size_ -= size_type(last - first);
        return from;
    }

    /// Same size and elements. Hidden friends: found through the SmallVector argument, and a
    /// std::vector on either side converts, so `shape == std::vector<std::int64_t>{2, 3}` keeps working.
    friend bool operator==(const SmallVector& a, const SmallVector& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
    /// Lexicographic order, as std::vector's.
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
